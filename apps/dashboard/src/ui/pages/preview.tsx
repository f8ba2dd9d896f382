import { useRef, useState } from 'preact/hooks';
import { api, type Schemas } from '../api';
import { Feedback, Field } from '../components';
import { useAction } from '../hooks';

type RenderedPreview = Schemas['BroadcastPreview'];

/**
 * The email as one subscriber would receive it (POST /broadcasts/:id/preview). The HTML shows in
 * preview-frame.html: sandboxed, an opaque origin, under its own policy (no script of the email).
 */
export function Preview({ broadcastId }: { broadcastId: number }) {
  const [email, setEmail] = useState('');
  const [preview, setPreview] = useState<RenderedPreview | undefined>(undefined);
  const action = useAction();
  const frame = useRef<HTMLIFrameElement>(null);
  // The frame (its own page, sandboxed) receives the HTML once it has loaded.
  const show = () => frame.current?.contentWindow?.postMessage({ html: preview?.html }, '*');

  async function submit(event: Event) {
    event.preventDefault();
    await action.run(async () => setPreview(await api<RenderedPreview>('POST', `/broadcasts/${broadcastId}/preview`, { body: { email } })));
  }

  return (
    <form class="panel stack" onSubmit={submit}>
      <h2>Preview</h2>
      <div class="row">
        <Field label="For subscriber (email)">
          <input type="email" name="preview_email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
      </div>
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Preview
        </button>
      </div>
      <Feedback action={action} />
      {preview && (
        <div class="preview" data-preview-for={preview.subscriber_email}>
          <p>
            <strong>Subject:</strong> <span class="preview-subject">{preview.subject}</span>
          </p>
          <iframe key={preview.html} ref={frame} title="HTML version" sandbox="allow-scripts" src="/app/preview-frame.html" onLoad={show} />
          <pre class="preview-text">{preview.text}</pre>
        </div>
      )}
    </form>
  );
}
