import { classifyEngagement, isMailProxy, machineAction, type ActionRequest, type EngagementRequest } from './engagement';

const delivered = new Date('2026-12-03T10:00:00Z');
const after = (ms: number) => new Date(delivered.getTime() + ms);
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const GMAIL = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const base: EngagementRequest = { kind: 'open', method: 'GET', userAgent: CHROME, isKnownBot: false, deliveredAt: delivered, at: after(60_000) };

describe('classifyEngagement', () => {
  test.each<[string, Partial<EngagementRequest>, boolean, string | null]>([
    ['a browser open a minute after delivery', {}, false, null],
    ['HEAD, whatever else', { method: 'HEAD' }, true, 'head'],
    ['HEAD in lower case', { method: 'head' }, true, 'head'],
    ['a known bot agent', { userAgent: 'curl/8.0', isKnownBot: true }, true, 'user_agent'],
    ['a mail proxy within 2 s of delivery', { userAgent: GMAIL, isKnownBot: true, at: after(1_999) }, true, 'prefetch'],
    ['a mail proxy at 2 s', { userAgent: GMAIL, isKnownBot: true, at: after(2_000) }, false, null],
    ['Apple MPP within 2 s', { userAgent: 'Mozilla/5.0', isKnownBot: true, at: after(500) }, true, 'prefetch'],
    ['no agent within 2 s', { userAgent: null, at: after(500) }, true, 'prefetch'],
    ['a browser within 2 s', { at: after(500) }, false, null],
    ['a proxy before the delivery is recorded', { userAgent: GMAIL, deliveredAt: null }, true, 'prefetch'],
  ])('open: %s', (_name, change, machine, reason) => {
    const c = classifyEngagement({ ...base, ...change });
    expect([c.machine, c.machine_reason, c.retroactive]).toEqual([machine, reason, []]);
  });

  const click: EngagementRequest = { ...base, kind: 'click', linkId: 1, linkCount: 3, earlierClicks: [] };
  test.each<[string, Partial<EngagementRequest>, boolean, string | null, number[]]>([
    ['a browser click a minute after delivery', {}, false, null, []],
    ['within 10 s of delivery', { at: after(9_999) }, true, 'scanner', []],
    ['at 10 s', { at: after(10_000) }, false, null, []],
    ['before the delivery is recorded', { deliveredAt: null }, true, 'scanner', []],
    ['a bot agent', { isKnownBot: true, userAgent: 'Barracuda Sentinel (EE)' }, true, 'user_agent', []],
    ['HEAD', { method: 'HEAD' }, true, 'head', []],
    [
      'the last of every link within 5 s: the walk is flagged back',
      {
        linkId: 3,
        earlierClicks: [
          { id: 10, linkId: 1, at: after(56_000), machine: false },
          { id: 11, linkId: 2, at: after(57_000), machine: false },
        ],
      },
      true,
      'scanner',
      [10, 11],
    ],
    [
      'every link, but spread over more than 5 s',
      {
        linkId: 3,
        earlierClicks: [
          { id: 10, linkId: 1, at: after(54_999), machine: false },
          { id: 11, linkId: 2, at: after(57_000), machine: false },
        ],
      },
      false,
      null,
      [],
    ],
    [
      'links fetched at once, one recorded earlier with a time a moment later: still the walk',
      {
        linkId: 2,
        linkCount: 2,
        earlierClicks: [{ id: 10, linkId: 1, at: after(60_012), machine: false }],
      },
      true,
      'scanner',
      [10],
    ],
    ['two of three links within 5 s', { linkId: 2, earlierClicks: [{ id: 10, linkId: 1, at: after(59_000), machine: false }] }, false, null, []],
    [
      'earlier clicks already flagged are not flagged again',
      {
        linkId: 3,
        earlierClicks: [
          { id: 10, linkId: 1, at: after(56_000), machine: true },
          { id: 11, linkId: 2, at: after(57_000), machine: false },
        ],
      },
      true,
      'scanner',
      [11],
    ],
    ['a one-link email: one click is a person', { linkCount: 1 }, false, null, []],
  ])('click: %s', (_name, change, machine, reason, retroactive) => {
    const c = classifyEngagement({ ...click, ...change });
    expect([c.machine, c.machine_reason, c.retroactive]).toEqual([machine, reason, retroactive]);
  });

  it('knows the mail proxies by agent', () => {
    expect([GMAIL, 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html', 'Mozilla/5.0', '', null].map(isMailProxy)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(isMailProxy(CHROME)).toBe(false);
  });
});

describe('machineAction', () => {
  const action: ActionRequest = { method: 'POST', userAgent: CHROME, isKnownBot: false, deliveredAt: delivered, at: after(60_000) };
  test.each<[string, Partial<ActionRequest>, string | null]>([
    ['a browser a minute after delivery', {}, null],
    ['HEAD', { method: 'HEAD' }, 'head'],
    ['a bot agent', { isKnownBot: true, userAgent: 'python-requests/2.31' }, 'user_agent'],
    ['a mail proxy agent is no excuse', { isKnownBot: true, userAgent: GMAIL }, 'user_agent'],
    ['within 10 s of delivery', { at: after(9_000) }, 'scanner'],
    ['delivery unknown: no timing rule', { deliveredAt: null }, null],
  ])('%s', (_name, change, reason) => {
    expect(machineAction({ ...action, ...change })).toBe(reason);
  });
});
