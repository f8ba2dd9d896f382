import { smtpFailureKind } from './smtp';

describe('smtpFailureKind (docs/broadcasts-and-sending.md: 5xx hard bounce, 4xx delayed)', () => {
  it.each([
    [550, 'permanent'],
    [551, 'permanent'],
    [553, 'permanent'],
    [500, 'permanent'],
    [599, 'permanent'],
    [421, 'temporary'],
    [450, 'temporary'],
    [451, 'temporary'],
    [452, 'temporary'],
    [null, 'temporary'],
    [undefined, 'temporary'],
    [250, 'temporary'],
    [600, 'temporary'],
  ])('%s is %s', (code, kind) => {
    expect(smtpFailureKind(code)).toBe(kind);
  });
});
