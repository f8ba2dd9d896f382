/**
 * A desktop browser's User-Agent, for a test that plays a person following a link: Node's own
 * fetch (`node`) and headless Chromium (`HeadlessChrome`) are bots to the engagement classifier,
 * so their opens, clicks, confirmations and unsubscribes are held as a machine's (docs/engagement.md).
 */
export const PERSON_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
