// The HTML a person sees on a preview host: the password form and the error pages (no JavaScript,
// no external assets, so they render the same behind any network policy).
export const LOGIN_PATH = '/__paddock/login';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}code{background:#f2f2f2;padding:0 .25rem;border-radius:3px}
input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.5rem 0}button{font:inherit;padding:.4rem 1rem}
.error{color:#b00020}.muted{color:#666;font-size:.9rem}</style></head>
<body>${body}</body></html>
`;
}

export function passwordPage(options: { label: string; next: string; wrongPassword: boolean }): string {
  return page(
    'Password required',
    `<h1>This preview is protected</h1>
<p>Enter the password for <code>${escape(options.label)}</code>.</p>
${options.wrongPassword ? '<p class="error">Wrong password.</p>' : ''}
<form method="post" action="${LOGIN_PATH}">
<input type="hidden" name="next" value="${escape(options.next)}">
<input type="password" name="password" autocomplete="current-password" autofocus required aria-label="Password">
<button type="submit">Continue</button>
</form>
<p class="muted">Scripts can send the password with HTTP Basic authentication.</p>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escape(title)}</h1>\n<p>${escape(message)}</p>\n<p class="muted">Served by Paddock's preview proxy.</p>`);
}
