// The dashboard's stylesheet, served as a file (/dashboard/assets/dashboard.css) so that the pages' Content
// Security Policy needs no inline style. Focus is always visible.
export const DASHBOARD_CSS = `
*{box-sizing:border-box}
body{font-family:system-ui,Helvetica,Arial,sans-serif;margin:0;color:#1b1b1b;background:#fafafa;line-height:1.4}
.skip,.sr{position:absolute;left:-9999px;top:0;background:#fff;padding:.5em 1em;z-index:10}
.skip:focus{left:1em;top:1em}
header{background:#123;color:#fff;padding:.6em 1em;display:flex;flex-wrap:wrap;gap:1em;align-items:center;justify-content:space-between}
header a{color:#fff}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:1em;margin:0;padding:0}
nav a[aria-current=page]{font-weight:bold;text-decoration:underline}
main{max-width:1100px;margin:0 auto;padding:1em}
table{border-collapse:collapse;width:100%;background:#fff;margin:.5em 0 1.5em}
th,td{padding:.35em .5em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
.n{text-align:right;font-variant-numeric:tabular-nums}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #e07b00;outline-offset:2px}
button{font:inherit;padding:.3em .9em;cursor:pointer}
form.inline{display:inline}
label{display:block;font-weight:600;margin:.6em 0 .2em}
input[type=text],input[type=password],input[type=number]{font:inherit;padding:.3em;width:min(100%,28em)}
.notice{background:#e7f4e4;border:1px solid #6a6;padding:.6em 1em}
.error{background:#fbe9e9;border:1px solid #c44;padding:.6em 1em}
.event{background:#fff;border:1px solid #ddd;padding:.5em 1em;margin:1em 0}
.muted{color:#555}
`;

/** The pages' icon (a browser asks for one; without it, /favicon.ico answers 404 on every page). */
export const DASHBOARD_ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#123"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>';
