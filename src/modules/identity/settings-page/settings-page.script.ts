import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The page's script, in the source tree beside this file: tsc copies no .js, so the built service reads it from there too. */
const SCRIPT_IN_PACKAGE = 'src/modules/identity/settings-page/settings-page.client.js';

/**
 * The browser script, read once at start (a missing file stops the start, not a page view later).
 * Found from this module's directory up to the package root: src/… under the tests, dist/src/… built.
 */
export function readSettingsPageScript(from: string = import.meta.dirname): string {
  for (let directory = from; ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, SCRIPT_IN_PACKAGE);
    if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
    if (path.dirname(directory) === directory) throw new Error(`The settings page's script (${SCRIPT_IN_PACKAGE}) is not in the package above ${from}.`);
  }
}
