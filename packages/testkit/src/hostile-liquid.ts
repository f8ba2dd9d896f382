/**
 * Issue 34, finding 1: a few hundred bytes of valid Liquid that keep one render busy for seconds
 * inside a single `{{ }}` (a string doubled 15 times with `append`, split into characters, then
 * ten `sort_natural`), where liquidjs's render limit, checked between template nodes, never looks.
 */
export const HOSTILE_LIQUID =
  '{% assign s = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEF" %}' +
  '{% assign s = s | append: s %}'.repeat(15) +
  '{{ s | split: ""' +
  ' | sort_natural'.repeat(10) +
  ' }}';
