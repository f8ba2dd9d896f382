/**
 * The forms' one stylesheet, for the hosted page and (inside each widget's shadow root) the embed
 * script. Theme colours arrive as custom properties set from validated values, never as CSS text.
 * Shared by the api and the browser bundle (embed/), so it imports nothing.
 */
export const FORM_CSS = `
.mc-form{--mc-accent:#2563eb;--mc-bg:#fff;--mc-text:#18181b;--mc-button-text:#fff;--mc-radius:6px;box-sizing:border-box;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--mc-text);background:var(--mc-bg);border-radius:var(--mc-radius);padding:1.25rem;max-width:32rem;text-align:left}
.mc-form *{box-sizing:border-box}
.mc-form h2{font-size:1.35rem;margin:0 0 .5rem}
.mc-form p{margin:0 0 .75rem}
.mc-form img{max-width:100%;height:auto;display:block;margin:0 0 .75rem}
.mc-form hr{border:0;border-top:1px solid currentColor;opacity:.2;margin:.75rem 0}
.mc-spacer{height:1rem}
.mc-field{margin:0 0 .75rem}
.mc-field label,.mc-field legend{display:block;font-weight:600;margin:0 0 .25rem}
.mc-field fieldset{border:0;padding:0;margin:0}
.mc-field input[type=email],.mc-field input[type=text],.mc-field textarea,.mc-field select{width:100%;font:inherit;padding:.5rem .6rem;border:1px solid #a1a1aa;border-radius:var(--mc-radius);background:#fff;color:#18181b}
.mc-check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
.mc-check input{margin-top:.3rem}
.mc-form input:focus-visible,.mc-form textarea:focus-visible,.mc-form select:focus-visible,.mc-form button:focus-visible{outline:3px solid var(--mc-accent);outline-offset:2px}
.mc-submit{font:inherit;font-weight:600;border:0;cursor:pointer;border-radius:var(--mc-radius);padding:.6rem 1.2rem;background:var(--mc-accent);color:var(--mc-button-text)}
.mc-submit[disabled]{opacity:.6;cursor:progress}
.mc-hp{position:absolute!important;left:-10000px!important;width:1px;height:1px;overflow:hidden}
.mc-error{color:#b91c1c;font-weight:600;margin:.5rem 0 0}
.mc-error:empty{display:none}
.mc-close{position:absolute;top:.4rem;right:.4rem;font:inherit;font-size:1.4rem;line-height:1;border:0;background:transparent;color:inherit;cursor:pointer;padding:.3rem .55rem;border-radius:var(--mc-radius)}
.mc-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center;z-index:2147483000;padding:1rem}
.mc-backdrop .mc-form{position:relative;width:100%;max-height:100%;overflow:auto;box-shadow:0 10px 40px rgba(0,0,0,.3)}
.mc-full{background:var(--mc-bg)}
.mc-full .mc-form{box-shadow:none}
.mc-slide{position:fixed;right:1rem;bottom:1rem;z-index:2147483000;width:min(24rem,calc(100vw - 2rem));box-shadow:0 10px 40px rgba(0,0,0,.3)}
.mc-bar{position:fixed;left:0;right:0;bottom:0;z-index:2147483000;max-width:none;border-radius:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:flex-end;padding:.75rem 3rem .75rem 1rem;box-shadow:0 -4px 20px rgba(0,0,0,.2)}
.mc-bar>*{margin:0}
.mc-bar .mc-field{margin:0}
.mc-fab{position:fixed;right:1rem;bottom:1rem;z-index:2147483000;box-shadow:0 4px 16px rgba(0,0,0,.3)}
.mc-done:focus{outline:none}
`;
