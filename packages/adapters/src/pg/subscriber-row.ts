/** A row of `subscribers` as `pg` reads it. */
export interface SubscriberRow {
  id: number;
  channel_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  ip_address: string | null;
  is_active: boolean;
  source: string;
  subscribed_at: Date;
  unsubscribed_at: Date | null;
  confirmed_at: Date | null;
  requires_confirmation: boolean;
  redacted_at: Date | null;
  tags: string[];
  custom_data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}
