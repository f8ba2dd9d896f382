import { useState } from 'preact/hooks';
import { api } from '../api';
import { Feedback, Field } from '../components';
import { useAction } from '../hooks';

export interface RenderedPreview {
  subscriber_email: string;
  subject: string;
  preheader: string | null;
  text: string | null;
  html: string | null;
}

/**
 * The email as one subscriber would receive it (POST /broadcasts/:id/preview). The HTML shows in a
 * sandboxed frame: no scripts, no navigation; the page's CSP still applies inside it.
 */
export function Preview({ broadcastId }: { broadcastId: number }) {
  const [email, setEmail] = useState('');
  const [preview, setPreview] = useState<RenderedPreview | undefined>(undefined);
  const action = useAction();

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
          {preview.html !== null && <iframe title="HTML version" sandbox="" srcdoc={preview.html} />}
          {preview.text !== null && <pre class="preview-text">{preview.text}</pre>}
        </div>
      )}
    </form>
  );
}
