import { MailcastError } from './errors';
import { fillPath, toQueryString } from './http';

describe('toQueryString (docs/api-decisions.md: tags[]=a&tags[]=b and custom_data[key]=value)', () => {
  it('repeats array keys and nests object keys, as the API parses them', () => {
    expect(
      decodeURIComponent(toQueryString({ 'tags[]': ['vip', 'beta'], custom_data: { plan: 'pro', seats: 3, trial: false }, page: 2, email: undefined })),
    ).toBe('?tags[]=vip&tags[]=beta&custom_data[plan]=pro&custom_data[seats]=3&custom_data[trial]=false&page=2');
  });

  it('encodes values, and gives nothing for an empty query', () => {
    expect(toQueryString({ email: 'a+b@example.com' })).toBe('?email=a%2Bb%40example.com');
    expect(toQueryString({})).toBe('');
    expect(toQueryString(undefined)).toBe('');
    expect(toQueryString({ limit: null })).toBe('');
  });
});

describe('fillPath', () => {
  it('fills and encodes path parameters', () => {
    expect(fillPath('/api/v1/broadcasts/{id}/statistics', { id: 42 })).toBe('/api/v1/broadcasts/42/statistics');
    expect(fillPath('/x/{token}', { token: 'a/b c' })).toBe('/x/a%2Fb%20c');
  });

  it('refuses a missing parameter rather than calling a wrong URL', () => {
    expect(() => fillPath('/api/v1/broadcasts/{id}', {})).toThrow('missing path parameter id');
  });
});

describe('MailcastError', () => {
  it('reads {error}', () => {
    const e = new MailcastError(422, { error: "Subject can't be blank" }, 'createBroadcast');
    expect(e).toMatchObject({ name: 'MailcastError', status: 422, error: "Subject can't be blank", errors: undefined });
    expect(e.message).toBe("createBroadcast failed with 422: Subject can't be blank");
    expect(e).toBeInstanceOf(Error);
  });

  it('reads {errors: {field: [...]}}', () => {
    const e = new MailcastError(422, { errors: { email: ['is invalid'], first_name: ['is too long', 'is odd'] } }, 'createSubscriber');
    expect(e.errors).toEqual({ email: ['is invalid'], first_name: ['is too long', 'is odd'] });
    expect(e.error).toBeUndefined();
    expect(e.message).toBe('createSubscriber failed with 422: email is invalid; first_name is too long, is odd');
  });

  it('keeps Retry-After and a non-JSON body', () => {
    const e = new MailcastError(429, 'slow down', 'listBroadcasts', 12);
    expect(e.retryAfterSeconds).toBe(12);
    expect(e.message).toBe('listBroadcasts failed with 429: slow down');
  });
});
