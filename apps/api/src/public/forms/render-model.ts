/**
 * What a form looks like to a visitor: the JSON the embed script fetches (`GET
 * /f/:identifier/form.json`) and the hosted page renders on the server. Only values checked on
 * the way in reach it (docs/opt-in-forms.md, "Rendering"): texts (escaped wherever they are
 * shown), hex colours, http(s) image addresses. No stored HTML or CSS.
 * Shared by the api and the browser bundle (embed/), so it imports nothing.
 */

export const WIDGET_TYPES = ['inline_embed', 'popup_modal', 'slide_in_panel', 'floating_button', 'sticky_bar', 'full_page'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

export type Trigger = 'immediate' | 'time_delay' | 'scroll' | 'exit_intent';
export type Frequency = 'always' | 'every_visit' | 'once_per_session' | 'once_per_day' | 'once_per_week' | 'once';
export type Device = 'desktop' | 'tablet' | 'mobile';

export interface RenderTrigger {
  trigger: Trigger;
  delaySeconds: number;
  scrollPercentage: number;
  frequency: Frequency;
  /** The devices the widget shows on; empty means all. */
  devices: Device[];
}

export interface RenderTheme {
  /** Button and focus colour. */
  accent: string;
  background: string;
  text: string;
  buttonText: string;
  /** Corner radius in pixels. */
  radius: number;
}

export type RenderBlockType = 'heading' | 'text' | 'image' | 'field' | 'checkbox' | 'dropdown' | 'radio_group' | 'button' | 'divider' | 'spacer';

export interface RenderBlock {
  type: RenderBlockType;
  /** heading and text: the words; image: its alternative text. */
  text: string;
  /** Fields: the label; checkbox: the words beside the box; button: its label. */
  label: string;
  placeholder: string;
  /** The submitted field's name: email, first_name, last_name, name, custom_data[key], topics[id]. */
  name: string;
  inputType: 'email' | 'text';
  required: boolean;
  multiline: boolean;
  options: Array<{ value: string; label: string }>;
  /** image: an http(s) address. */
  imageUrl: string;
}

export interface FormRenderModel {
  /** The chosen form row (main form or variant): views and submissions are posted to it. */
  identifier: string;
  widget: WidgetType;
  viewUrl: string;
  submitUrl: string;
  trigger: RenderTrigger;
  /** The honeypot field `website` is rendered (hidden from people) when true. */
  honeypot: boolean;
  /** Set when the form asks for Turnstile and the server can verify it. */
  turnstileSiteKey: string | null;
  /**
   * Cloudflare's Turnstile script, only beside a site key: the one thing the embed script ever
   * loads from another host, and only for a form that asks for the check.
   */
  turnstileScript: string | null;
  theme: RenderTheme;
  blocks: RenderBlock[];
  /** What replaces the form after a successful submission. */
  after: RenderBlock[];
  /**
   * The server's clock (epoch ms) when it answered: the script sends `rendered_at` as this plus
   * the time elapsed since, so a visitor's wrong clock never makes a person look like a bot.
   */
  servedAt: number;
}
