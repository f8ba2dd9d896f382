import { SUBJECT_TEST_LIMITS, SUBJECT_TEST_METRICS } from '@mailcast/domain';
import { arrayOf, closed, integer, nullableDateTime, ref, string, type Schema } from './schema-helpers';

const { subjects, samplePercent, waitMinutes } = SUBJECT_TEST_LIMITS;
const metric: Schema = { type: 'string', enum: [...SUBJECT_TEST_METRICS], description: 'What decides: human opens or human clicks, as a rate over sent.' };

const report = {
  metric,
  variants: arrayOf(ref('SubjectTestVariant'), "One per subject, in the test's order."),
  winner: {
    oneOf: [closed({ index: integer('0-based, in the order of subjects.'), subject: string() }), { type: 'null' }],
    description: 'null until the winner is decided.',
  },
  decided_at: nullableDateTime('When the winner was decided; null before.'),
};

/** Subject tests (docs/subject-tests.md). Spread into SCHEMAS by schemas.ts. */
export const SUBJECT_TEST_SCHEMAS: Record<string, Schema> = {
  SubjectTest: closed(
    {
      subjects: { ...arrayOf(string()), minItems: subjects.min, maxItems: subjects.max },
      sample_percent: { ...integer(), minimum: samplePercent.min, maximum: samplePercent.max },
      metric,
      wait_minutes: { ...integer(), minimum: waitMinutes.min, maximum: waitMinutes.max },
    },
    "A broadcast's subject test (docs/subject-tests.md).",
  ),
  SubjectTestVariant: closed({
    subject: string(),
    sent: integer("Recipients of this subject's part whose email the SMTP server accepted."),
    human_opens: integer('Of them, those with an open not flagged as a machine (docs/engagement.md).'),
    human_clicks: integer('Of them, those with a click not flagged as a machine.'),
  }),
  SubjectTestStatistics: closed(report, "Each part's figures and the winner (docs/subject-tests.md)."),
  SubjectTestDecidedEventData: closed({ broadcast_id: integer(), broadcast_channel_id: integer(), ...report }),
};
