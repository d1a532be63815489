/** The counts of batch evaluation, shared by the activities and the workflow (which imports the type only). */

/** What grading some lines did, by kind of record. */
export interface GradingCounts {
  /** Results stored now; records skipped because a result was already stored; refused duplicates. */
  graded: number;
  alreadyGraded: number;
  duplicates: number;
  /** Lines that are not a valid record, and valid records that could not be graded (unknown use case). */
  invalid: number;
  failed: number;
}
