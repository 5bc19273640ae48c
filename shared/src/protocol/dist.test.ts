import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// The protocol library must run as plain JavaScript after the build, through the package's own
// export map, with no TypeScript tooling in the loop.
describe('the built package', () => {
  it('when @paydesk/shared/protocol is imported by plain node, then it signs the documented worked example', () => {
    expect(existsSync(resolve(packageDir, 'dist/protocol/index.js')), 'run the build first').toBe(
      true,
    );
    const script = `
      import { controlValue, toMinorUnits, operations } from '@paydesk/shared/protocol';
      const control = controlValue('sale', { endpointId: '1111', client_orderid: '902B4FF5', amount: '10.42',
        email: 'john.smith@gmail.com' }, 'B17F59B4-A7DC-41B4-8FF9-37D986B43D20');
      console.log(JSON.stringify({ control, minor: String(toMinorUnits('19.99')), count: operations.length }));
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual({
      control: 'c6bdd88a78834ef4b863b088827a459f039e8257',
      minor: '1999',
      count: 27,
    });
  });
});
