import type { Institution } from '../bank-link.port.js';

/** Fictional institutions, like a provider's sandbox banks; `.example` hosts never resolve. */
export const SANDBOX_INSTITUTIONS: readonly Institution[] = [
  { id: 'ins_100001', name: 'Harbor Point Bank', logo: 'https://logos.ledgerline.example/institutions/harbor-point-bank.png', url: 'https://www.harborpointbank.example' },
  { id: 'ins_100002', name: 'Summit Federal Credit Union', logo: 'https://logos.ledgerline.example/institutions/summit-fcu.png', url: 'https://www.summitfcu.example' },
  { id: 'ins_100003', name: 'Cedar & Main Bank', logo: 'https://logos.ledgerline.example/institutions/cedar-and-main.png', url: 'https://www.cedarandmain.example' },
  { id: 'ins_100004', name: 'Northstar Savings Bank', logo: 'https://logos.ledgerline.example/institutions/northstar-savings.png', url: 'https://www.northstarsavings.example' },
  { id: 'ins_100005', name: 'Bluewater National Bank', logo: 'https://logos.ledgerline.example/institutions/bluewater-national.png', url: 'https://www.bluewaterbank.example' },
];

export function findSandboxInstitution(institutionId: string): Institution | undefined {
  return SANDBOX_INSTITUTIONS.find((institution) => institution.id === institutionId);
}

export interface HomeCity {
  readonly city: string;
  readonly region: string;
  readonly postalPrefix: string;
  readonly lat: number;
  readonly lon: number;
  readonly streets: readonly string[];
}

export const HOME_CITIES: readonly HomeCity[] = [
  { city: 'San Francisco', region: 'CA', postalPrefix: '941', lat: 37.7749, lon: -122.4194, streets: ['Market St', 'Valencia St', 'Mission St', 'Geary Blvd', 'Irving St'] },
  { city: 'Austin', region: 'TX', postalPrefix: '787', lat: 30.2672, lon: -97.7431, streets: ['Congress Ave', 'S Lamar Blvd', 'Guadalupe St', 'Burnet Rd', 'E 6th St'] },
  { city: 'Chicago', region: 'IL', postalPrefix: '606', lat: 41.8781, lon: -87.6298, streets: ['N Clark St', 'W Division St', 'N Milwaukee Ave', 'S State St', 'W Belmont Ave'] },
  { city: 'Seattle', region: 'WA', postalPrefix: '981', lat: 47.6062, lon: -122.3321, streets: ['Pike St', 'NE 45th St', 'Rainier Ave S', '15th Ave E', 'Fremont Ave N'] },
  { city: 'Brooklyn', region: 'NY', postalPrefix: '112', lat: 40.6782, lon: -73.9442, streets: ['Atlantic Ave', 'Bedford Ave', 'Flatbush Ave', '5th Ave', 'Court St'] },
];

/** Travel destinations: one domestic, one abroad (the one that draws foreign-transaction fees). */
export const TRIP_CITIES: readonly (HomeCity & { readonly country: string; readonly foreign: boolean })[] = [
  { city: 'Denver', region: 'CO', postalPrefix: '802', lat: 39.7392, lon: -104.9903, streets: ['Larimer St', 'Colfax Ave'], country: 'US', foreign: false },
  { city: 'Lisbon', region: 'Lisboa', postalPrefix: '1100', lat: 38.7223, lon: -9.1393, streets: ['Rua Augusta', 'Avenida da Liberdade'], country: 'PT', foreign: true },
];

export interface Employer {
  readonly name: string;
  readonly payrollDescriptor: string;
  readonly website: string;
}

export const EMPLOYERS: readonly Employer[] = [
  { name: 'Northwind Traders', payrollDescriptor: 'NORTHWIND TRADERS DIR DEP', website: 'northwindtraders.example' },
  { name: 'Contoso Ltd', payrollDescriptor: 'CONTOSO LTD PAYROLL', website: 'contoso.example' },
  { name: 'Fabrikam Inc', payrollDescriptor: 'FABRIKAM INC PPD', website: 'fabrikam.example' },
  { name: 'Tailspin Health', payrollDescriptor: 'TAILSPIN HEALTH PAYRL', website: 'tailspinhealth.example' },
  { name: 'Adventure Works', payrollDescriptor: 'ADVENTURE WORKS DIRDEP', website: 'adventureworks.example' },
];
