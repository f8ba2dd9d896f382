import proxyaddr from 'proxy-addr';

/** Peer addresses whose answer is remembered; past this many distinct ones the memory starts over. */
const REMEMBERED = 1024;

/**
 * Express's `trust proxy` setting for TRUSTED_PROXIES (docs/security.md, "Per-address limits"):
 * false for none, else proxy-addr's check of the list with its answer remembered per address.
 * Express asks it on every read of `req.ip` (the per-address limits read it several times a
 * request), and the check parses the address each time. The addresses it is asked about are the peers and the proxies in front of them,
 * a handful; a caller writing addresses into X-Forwarded-For reaches the check only behind a
 * trusted proxy, and then at most fills the bounded memory, which starts over.
 */
export function trustProxySetting(list: readonly string[]): false | ((address: string, hop: number) => boolean) {
  if (list.length === 0) return false;
  const trusts = proxyaddr.compile([...list]);
  const answers = new Map<string, boolean>();
  return (address, hop) => {
    let answer = answers.get(address);
    if (answer === undefined) {
      // Compiled from a list of addresses and ranges, the check does not depend on the hop.
      answer = trusts(address, hop);
      if (answers.size >= REMEMBERED) answers.clear();
      answers.set(address, answer);
    }
    return answer;
  };
}
