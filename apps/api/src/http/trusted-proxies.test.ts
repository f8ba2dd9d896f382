import proxyaddr from 'proxy-addr';
import { trustProxySetting } from './trusted-proxies';

describe('trustProxySetting', () => {
  it('trusts no one when TRUSTED_PROXIES is empty', () => {
    expect(trustProxySetting([])).toBe(false);
  });

  it('answers as proxy-addr does, for every address, asked once or again, past the memory bound', () => {
    const list = ['127.0.0.1', '10.0.0.0/8', 'uniquelocal'];
    const setting = trustProxySetting(list);
    if (setting === false) throw new Error('expected a check');
    const plain = proxyaddr.compile(list);
    const addresses = ['127.0.0.1', '::ffff:127.0.0.1', '10.1.2.3', '11.1.2.3', 'fd00::1', '::1', 'not an address', ''];
    // 3,000 distinct addresses pass the 1,024 remembered: the memory starts over, answers stay right.
    for (let i = 0; i < 3000; i++) addresses.push(`${i % 2 === 0 ? 10 : 12}.0.${(i >> 8) & 255}.${i & 255}`);
    for (const round of [1, 2]) {
      for (const address of addresses) expect([round, address, setting(address, 0)]).toEqual([round, address, plain(address, 0)]);
    }
  });
});
