import { FLOOD_SUBMISSIONS_PER_MINUTE, FormSubmissionLimits } from './submission-limits';

describe('FormSubmissionLimits (docs/opt-in-forms.md, "Protections")', () => {
  it("refuses past the form's limit within its window, remembers the refusal for the early check, and lets the window move on", () => {
    let now = Date.UTC(2026, 11, 1, 12);
    const limits = new FormSubmissionLimits(() => now);
    for (let i = 0; i < 5; i++) {
      expect(limits.refuseSubmissionEarly('203.0.113.1', 'form-a')).toBeNull();
      expect(limits.countForForm('203.0.113.1', 'form-a', 5, 60)).toBeNull();
      now += 1000;
    }
    expect(limits.refuseSubmissionEarly('203.0.113.1', 'form-a')).toBe(3600 - 5);
    expect(limits.countForForm('203.0.113.1', 'form-a', 5, 60)).toBe(3600 - 5);
    // Another address and another form are counted apart.
    expect(limits.refuseSubmissionEarly('203.0.113.2', 'form-a')).toBeNull();
    expect(limits.refuseSubmissionEarly('203.0.113.1', 'form-b')).toBeNull();
    now += 3600 * 1000 - 5000;
    expect(limits.refuseSubmissionEarly('203.0.113.1', 'form-a')).toBeNull();
    expect(limits.countForForm('203.0.113.1', 'form-a', 5, 60)).toBeNull();
  });

  it('refuses a flood from one address across forms within the minute', () => {
    const now = Date.UTC(2026, 11, 1, 12, 0, 10);
    const limits = new FormSubmissionLimits(() => now);
    for (let i = 0; i < FLOOD_SUBMISSIONS_PER_MINUTE; i++) expect(limits.refuseSubmissionEarly('198.51.100.7', `form-${i}`)).toBeNull();
    expect(limits.refuseSubmissionEarly('198.51.100.7', 'form-x')).toBe(50);
  });
});
