/** Bounded: enough to diagnose a receiver, never a whole page stored per attempt. */
export const MAX_STORED_RESPONSE_BODY = 4096;

/** A response body as stored: cut at MAX_STORED_RESPONSE_BODY characters. */
export const truncate = (s: string) => (s.length > MAX_STORED_RESPONSE_BODY ? s.slice(0, MAX_STORED_RESPONSE_BODY) : s);
