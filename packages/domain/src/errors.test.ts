import { DomainError } from './errors';

describe('DomainError', () => {
  test('carries a stable code, the message and its own name', () => {
    const e = new DomainError('broadcast_not_ready', 'Broadcast is not ready to send');
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(DomainError);
    expect(e.name).toBe('DomainError');
    expect(e.code).toBe('broadcast_not_ready');
    expect(e.message).toBe('Broadcast is not ready to send');
  });
});
