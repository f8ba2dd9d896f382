/** A page of a list: how many items and from which position. */
export interface Page {
  limit: number;
  offset: number;
}
