import { emailServerFor, fallbackSenderEmail, senderAddress, usableEmailServers } from './sender';

describe('senderAddress: who an email is from', () => {
  const none = { fromEmail: null, fromName: null };
  const channel = { name: 'Weekly', fromEmail: 'news@channel.test', fromName: 'Channel News' };

  it("uses the email server's address and name first", () => {
    expect(senderAddress({ fromEmail: 'out@server.test', fromName: 'Server' }, channel, 'mail.test')).toEqual({
      email: 'out@server.test',
      name: 'Server',
    });
  });

  it("takes the channel's name for a server address without one", () => {
    expect(senderAddress({ fromEmail: 'out@server.test', fromName: null }, channel, 'mail.test')).toEqual({
      email: 'out@server.test',
      name: 'Channel News',
    });
  });

  it("falls back to the channel's address and name when the server has no address", () => {
    expect(senderAddress({ fromEmail: null, fromName: 'Server' }, channel, 'mail.test')).toEqual({
      email: 'news@channel.test',
      name: 'Channel News',
    });
  });

  it("ends at no-reply@<public host> with the channel's name", () => {
    expect(senderAddress(none, { name: 'Weekly', ...none }, 'mail.test')).toEqual({ email: 'no-reply@mail.test', name: 'Weekly' });
    expect(fallbackSenderEmail('links.example.com')).toBe('no-reply@links.example.com');
  });

  it('names nobody when the channel is gone and the server has no name', () => {
    expect(senderAddress(none, null, 'mail.test')).toEqual({ email: 'no-reply@mail.test', name: null });
  });
});

describe('usableEmailServers: which servers a broadcast goes through', () => {
  const servers = [{ id: 1 }, { id: 2 }, { id: 3 }];

  it("uses all of the channel's servers when none are named", () => {
    expect(usableEmailServers({ emailServerIds: [], useAnyEmailServer: false }, servers)).toEqual(servers);
  });

  it('uses all of them with use_any_email_server, whatever is named', () => {
    expect(usableEmailServers({ emailServerIds: [2], useAnyEmailServer: true }, servers)).toEqual(servers);
  });

  it('uses the named servers that still exist, in the channel order', () => {
    expect(usableEmailServers({ emailServerIds: [3, 1, 9], useAnyEmailServer: false }, servers)).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('has none when every named server is gone', () => {
    expect(usableEmailServers({ emailServerIds: [9], useAnyEmailServer: false }, servers)).toEqual([]);
  });
});

describe('emailServerFor: the server one email (a confirmation, a transactional) goes through', () => {
  const servers = [
    { id: 1, active: false },
    { id: 2, active: true },
    { id: 3, active: true },
  ];

  it("takes the channel's first server that is switched on when none is named", () => {
    expect(emailServerFor(servers)).toEqual({ id: 2, active: true });
  });

  it('takes the named server while it is switched on', () => {
    expect(emailServerFor(servers, 3)).toEqual({ id: 3, active: true });
  });

  it('has none when the named server is switched off or gone, or none is switched on', () => {
    expect(emailServerFor(servers, 1)).toBeUndefined();
    expect(emailServerFor(servers, 9)).toBeUndefined();
    expect(emailServerFor([{ id: 1, active: false }])).toBeUndefined();
  });
});
