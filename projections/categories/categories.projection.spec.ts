import { createHash } from 'node:crypto';
import { SYSTEM_TAXONOMY } from '../../src/modules/categories/system-taxonomy.js';
import { categoriesProjection } from './categories.projection.js';

/** The taxonomy each version of the read model was built with: its reference rows are filled only when a version's schema is made. */
const TAXONOMY_OF_VERSION: Readonly<Record<number, string>> = {
  2: 'e97187d32b9baeade31e7ee020b5873ca1bbba7dcbc727ae660187042e82fbb8',
  3: 'e97187d32b9baeade31e7ee020b5873ca1bbba7dcbc727ae660187042e82fbb8',
};

describe('categories projection', () => {
  it('is a new version whenever the system taxonomy changes, so its reference rows follow the code', () => {
    const fingerprint = createHash('sha256').update(JSON.stringify(SYSTEM_TAXONOMY)).digest('hex');
    expect(`version ${categoriesProjection.version}: ${TAXONOMY_OF_VERSION[categoriesProjection.version]}`).toBe(`version ${categoriesProjection.version}: ${fingerprint}`);
  });
});
