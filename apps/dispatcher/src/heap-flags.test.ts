import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { heapFlags } from './heap-flags';

describe("the dispatcher's heap flags", () => {
  it('bounds the young generation and the old generation growth by default', () => {
    expect(heapFlags([], '')).toEqual(['--semi-space-growth-factor=1', '--min-semi-space-size=2', '--heap-growing-percent=30']);
  });

  it("leaves the operator's own flags as given, on the command line or in NODE_OPTIONS", () => {
    expect(heapFlags(['--max-semi-space-size=8'], '')).toEqual(['--heap-growing-percent=30']);
    expect(heapFlags([], '--max_semi_space_size=8 --heap-growing-percent=50')).toEqual([]);
    expect(heapFlags(['--inspect'], '--max-old-space-size=512')).toEqual([
      '--semi-space-growth-factor=1',
      '--min-semi-space-size=2',
      '--heap-growing-percent=30',
    ]);
  });

  it('takes effect when loaded first, with no node flag: the young generation stays at its first size', async () => {
    // The built module, as main.ts loads it, in a fresh process that then makes garbage.
    const script = `
      require(${JSON.stringify(path.resolve(__dirname, '../dist/heap-flags.js'))});
      const v8 = require('node:v8');
      const ring = new Array(2000);
      let largest = 0;
      for (let i = 0; i < 3e6; i++) {
        ring[i % ring.length] = { s: 'x' + i, a: [i, i] };
        if (i % 5000 === 0) largest = Math.max(largest, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
      }
      console.log(largest / 2 ** 20);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: '' } });
    expect(Number(stdout)).toBeLessThanOrEqual(2);
  });
});
