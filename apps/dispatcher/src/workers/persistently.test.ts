import { persistently } from './persistently';

describe('persistently: a known outcome survives a short database outage', () => {
  it('tries again after each failure until the write goes through', async () => {
    let calls = 0;
    await persistently(async () => {
      calls += 1;
      if (calls < 3) throw new Error('connection terminated');
    }, [1, 1, 1]);
    expect(calls).toBe(3);
  });

  it('gives up after its last delay with the last error, so the stalled sweep takes over', async () => {
    let calls = 0;
    await expect(
      persistently(async () => {
        calls += 1;
        throw new Error(`down ${calls}`);
      }, [1, 1]),
    ).rejects.toThrow('down 3');
    expect(calls).toBe(3);
  });

  it('writes once when nothing fails', async () => {
    let calls = 0;
    await persistently(async () => {
      calls += 1;
    });
    expect(calls).toBe(1);
  });
});
