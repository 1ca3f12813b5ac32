import { isPublicAddress, refusalOf } from './webhook-address.js';

describe('webhook addresses', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255'])(
    'IPv4 %s is not public',
    (address) => expect(isPublicAddress(address)).toBe(false),
  );

  it.each(['::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1', 'fe80::1%eth0'])(
    'IPv6 %s is not public (IPv4-mapped included)',
    (address) => expect(isPublicAddress(address)).toBe(false),
  );

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => expect(isPublicAddress(address)).toBe(true));

  it('refuses a URL that is not http(s), or whose host resolves to any private address', async () => {
    const resolve = (addresses: string[]) => async () => addresses;
    expect(await refusalOf('ftp://example.com/', false, resolve(['93.184.216.34']))).toBe('scheme');
    expect(await refusalOf('not a url', false, resolve([]))).toBe('scheme');
    expect(await refusalOf('https://example.com/hook', false, resolve(['93.184.216.34']))).toBeNull();
    expect(await refusalOf('https://sneaky.example/hook', false, resolve(['93.184.216.34', '10.0.0.5']))).toBe('private');
    expect(await refusalOf('http://127.0.0.1:8080/', false, resolve([]))).toBe('private');
    expect(await refusalOf('http://[::ffff:127.0.0.1]/', false, resolve([]))).toBe('private');
  });

  it('allows private addresses when told to (development and tests)', async () => {
    expect(await refusalOf('http://127.0.0.1:8080/', true)).toBeNull();
  });
});
