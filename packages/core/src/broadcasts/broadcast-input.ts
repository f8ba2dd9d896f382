import { DomainError, isValidEmail, isValidTimezone, resolveScheduledSendAt, type SubjectTest } from '@mailcast/domain';
import { ValidationError } from '../errors';
import type { Broadcast, BroadcastChanges, EmailHeader, Repositories, Templates } from '../ports';

/** Create and update parameters (spec: Create / update body parameters), already type-checked. */
export interface BroadcastInput {
  name?: string | null;
  subject?: string | null;
  preheader?: string | null;
  body?: string | null;
  htmlBody?: string | null;
  includeUnsubscribeLink?: boolean;
  replyTo?: string | null;
  trackOpens?: boolean;
  trackClicks?: boolean;
  useAnyEmailServer?: boolean;
  emailHeaders?: EmailHeader[];
  tags?: string[];
  segmentIds?: number[];
  /** A topic of the channel; null: none (docs/topics.md, Audiences). */
  topicId?: number | null;
  /** Segments of the channel whose members are left out; none of them also in segmentIds. */
  excludedSegmentIds?: number[];
  /** Fields not given are taken from the template (docs/templates.md). */
  templateId?: number | null;
  emailServerIds?: number[];
  /** ISO 8601; without an offset it is wall-clock time in the timezone (docs/broadcasts-and-sending.md). */
  scheduledSendAt?: string | null;
  scheduledTimezone?: string | null;
  /** Published in the public archive once sent (docs/archive.md). */
  archive?: boolean;
  /** Each recipient at the schedule's wall-clock time in their own zone (docs/broadcasts-and-sending.md). */
  sendInSubscriberTimezone?: boolean;
  /** A subject test (docs/subject-tests.md), its shape already checked; null: none. */
  abTest?: SubjectTest | null;
}

/** docs/subject-tests.md: the winner goes out when it is decided, not at each subscriber's hour. */
export const SUBJECT_TEST_WITH_TIMEZONE = 'ab_test cannot be combined with send_in_subscriber_timezone';

export const SUBJECT_BLANK = "Subject can't be blank";

const LIQUID_FIELDS = [
  ['subject', 'Subject'],
  ['body', 'Body'],
  ['htmlBody', 'Html body'],
] as const;

/**
 * Checks what the types cannot (blank subject, Liquid, reply-to address, references into the
 * channel, the schedule) and turns the input into repository changes. Every problem is
 * reported at once, joined by commas like the spec's webhook endpoint row. `current` is the
 * stored broadcast on update, undefined on create.
 */
export async function toBroadcastChanges(
  input: BroadcastInput,
  context: { channelId: number; repositories: Repositories; templates: Templates; current?: Broadcast },
): Promise<BroadcastChanges> {
  const { channelId, repositories, templates, current } = context;
  const problems: string[] = [];
  input = await withTemplate(input, channelId, repositories, problems);

  const subjectGiven = current === undefined || input.subject !== undefined;
  if (subjectGiven && (input.subject == null || input.subject.trim() === '')) problems.push(SUBJECT_BLANK);

  for (const [field, label] of LIQUID_FIELDS) {
    const source = input[field];
    if (typeof source !== 'string') continue;
    const error = templates.check(source);
    if (error !== null) problems.push(`${label} is not valid Liquid: ${error}`);
  }

  if (typeof input.replyTo === 'string' && input.replyTo.trim() !== '' && !isValidEmail(input.replyTo.trim())) {
    problems.push('Reply to is not a valid email address');
  }

  if (input.segmentIds && input.segmentIds.length > 0) {
    const unknown = await repositories.broadcasts.unknownSegmentIds(channelId, input.segmentIds);
    if (unknown.length > 0) problems.push(`Segment ids include unknown segments: ${unknown.join(', ')}`);
  }
  problems.push(...(await audienceProblems(input, channelId, repositories, current)));
  if (input.emailServerIds && input.emailServerIds.length > 0) {
    const mine = new Set((await repositories.emailServers.listForChannel(channelId)).map((s) => s.id));
    const unknown = [...new Set(input.emailServerIds)].filter((id) => !mine.has(id));
    if (unknown.length > 0) problems.push(`Email server ids include unknown email servers: ${unknown.join(', ')}`);
  }

  problems.push(...subjectTestProblems(input, templates, current));
  const schedule = resolveSchedule(input, current, problems);
  if (problems.length > 0) throw new ValidationError(problems.join(', '));

  const replyTo = input.replyTo === undefined ? undefined : input.replyTo === null || input.replyTo.trim() === '' ? null : input.replyTo.trim();
  return {
    name: input.name,
    subject: input.subject ?? undefined,
    preheader: input.preheader,
    body: input.body,
    htmlBody: input.htmlBody,
    includeUnsubscribeLink: input.includeUnsubscribeLink,
    replyTo,
    trackOpens: input.trackOpens,
    trackClicks: input.trackClicks,
    useAnyEmailServer: input.useAnyEmailServer,
    emailHeaders: input.emailHeaders,
    tags: input.tags === undefined ? undefined : [...new Set(input.tags)],
    segmentIds: input.segmentIds === undefined ? undefined : [...new Set(input.segmentIds)],
    topicId: input.topicId,
    excludedSegmentIds: input.excludedSegmentIds === undefined ? undefined : [...new Set(input.excludedSegmentIds)],
    templateId: input.templateId,
    emailServerIds: input.emailServerIds === undefined ? undefined : [...new Set(input.emailServerIds)],
    archive: input.archive,
    sendInSubscriberTimezone: input.sendInSubscriberTimezone,
    abTest: input.abTest === undefined ? undefined : input.abTest === null ? null : { ...input.abTest, subjects: input.abTest.subjects.map((s) => s.trim()) },
    ...schedule,
  };
}

/**
 * A subject test's subjects are Liquid like the subject; none blank; and the test does not go with
 * sending in each subscriber's time zone, judged on what the broadcast ends with (docs/subject-tests.md).
 */
function subjectTestProblems(input: BroadcastInput, templates: Templates, current?: Broadcast): string[] {
  const problems: string[] = [];
  for (const [i, subject] of (input.abTest?.subjects ?? []).entries()) {
    if (subject.trim() === '') problems.push(`ab_test.subjects[${i}] can't be blank`);
    const error = templates.check(subject);
    if (error !== null) problems.push(`ab_test.subjects[${i}] is not valid Liquid: ${error}`);
  }
  const test = input.abTest === undefined ? current?.abTest : input.abTest;
  const byZone = input.sendInSubscriberTimezone ?? current?.sendInSubscriberTimezone ?? false;
  if (test && byZone && (input.abTest !== undefined || input.sendInSubscriberTimezone !== undefined)) problems.push(SUBJECT_TEST_WITH_TIMEZONE);
  return problems;
}

/**
 * The topic and the excluded segments (docs/topics.md, Audiences): the channel's own, and no
 * segment both targeted and excluded, judged on what the broadcast ends with (an update that
 * gives one list is checked against the stored other).
 */
async function audienceProblems(input: BroadcastInput, channelId: number, repositories: Repositories, current?: Broadcast): Promise<string[]> {
  const problems: string[] = [];
  if (input.topicId !== undefined && input.topicId !== null && !(await repositories.broadcasts.hasTopic(channelId, input.topicId))) {
    problems.push(`Topic id ${input.topicId} is not a topic of this channel`);
  }
  if (input.excludedSegmentIds && input.excludedSegmentIds.length > 0) {
    const unknown = await repositories.broadcasts.unknownSegmentIds(channelId, input.excludedSegmentIds);
    if (unknown.length > 0) problems.push(`Excluded segment ids include unknown segments: ${unknown.join(', ')}`);
  }
  const targeted = new Set(input.segmentIds ?? current?.segmentIds ?? []);
  const both = [...new Set(input.excludedSegmentIds ?? current?.excludedSegmentIds ?? [])].filter((id) => targeted.has(id));
  if ((input.segmentIds !== undefined || input.excludedSegmentIds !== undefined) && both.length > 0) {
    problems.push(`Excluded segment ids include targeted segments: ${both.join(', ')}`);
  }
  return problems;
}

/**
 * The schedule fields of create/update. A time is read when it is given: without an offset, in
 * the timezone given with it, else the stored one, else UTC. A timezone given alone relabels
 * the stored instant without moving it.
 */
function resolveSchedule(
  input: BroadcastInput,
  current: Broadcast | undefined,
  problems: string[],
): Pick<BroadcastChanges, 'scheduledSendAt' | 'scheduledTimezone'> {
  const result: Pick<BroadcastChanges, 'scheduledSendAt' | 'scheduledTimezone'> = {};
  if (input.scheduledTimezone !== undefined) {
    if (input.scheduledTimezone !== null && !isValidTimezone(input.scheduledTimezone)) {
      problems.push('Scheduled timezone is invalid');
      return result;
    }
    result.scheduledTimezone = input.scheduledTimezone;
  }
  if (input.scheduledSendAt === null) result.scheduledSendAt = null;
  else if (input.scheduledSendAt !== undefined) {
    const zone = input.scheduledTimezone ?? current?.scheduledTimezone ?? 'UTC';
    try {
      result.scheduledSendAt = resolveScheduledSendAt(input.scheduledSendAt, zone);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      problems.push(error.message);
    }
  }
  return result;
}

/**
 * A broadcast written from a template: the template's subject, preheader and bodies fill the
 * fields the request does not give (its own fields win). They are copied when the broadcast is
 * written, so what is sent is what the broadcast shows.
 */
async function withTemplate(input: BroadcastInput, channelId: number, repositories: Repositories, problems: string[]): Promise<BroadcastInput> {
  if (input.templateId === undefined || input.templateId === null) return input;
  const template = await repositories.templates.findById(channelId, input.templateId);
  if (template === null || template.purpose !== 'broadcast') {
    problems.push('Template not found');
    return input;
  }
  const fromTemplate: BroadcastInput = {};
  if (template.subject !== null) fromTemplate.subject = template.subject;
  if (template.preheader !== null) fromTemplate.preheader = template.preheader;
  if (template.body !== null) fromTemplate.body = template.body;
  if (template.htmlBody !== null) fromTemplate.htmlBody = template.htmlBody;
  const own = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as BroadcastInput;
  return { ...fromTemplate, ...own };
}
