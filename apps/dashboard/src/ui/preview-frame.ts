/**
 * The preview frame's only script (docs/dashboard.md, "Preview"): the dashboard posts the rendered
 * email's HTML, this writes it into the frame. The frame is sandboxed (an opaque origin: no access
 * to the dashboard or its token) and has its own policy, which lets the email's inline styles apply
 * while no script of the email runs.
 */
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (event.source !== window.parent) return;
  const data = event.data as { html?: unknown } | null;
  if (data && typeof data.html === 'string') document.documentElement.innerHTML = data.html;
});
