import { ConfigError, loadConfig } from '../../config/config.js';

describe('the metrics listener configuration', () => {
  it('is off unless METRICS_PORT is set, and listens on loopback unless METRICS_HOST opens it', () => {
    expect(loadConfig({})).toMatchObject({ metricsPort: null, metricsHost: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: ' ' }).metricsPort).toBeNull();
    expect(loadConfig({ METRICS_PORT: '9464' })).toMatchObject({ metricsPort: 9464, metricsHost: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
  });

  it('takes 0 as a port the OS picks, as PORT does', () => {
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).toBe(0);
  });

  it('refuses a port that is not one, naming the variable', () => {
    expect(() => loadConfig({ METRICS_PORT: 'yes' })).toThrow(new ConfigError('METRICS_PORT must be a whole number from 0 to 65535, got "yes".'));
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(ConfigError);
  });
});
