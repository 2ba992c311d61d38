"""The style sheet of the HTML report (inlined in the page: no file, no font to fetch).

System fonts, tabular figures, tables that scroll inside their card on a narrow
screen, figures that take the width they are given. Purple marks the published
reference figures, amber the warnings.
"""

CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d8dee4;--soft:#f6f8fa;--accent:#0969da;
--ref:#6639ba;--refbg:#f6f2ff;--good:#1a7f37;--bad:#cf222e;--warn:#7d4e00;--warnbg:#fff8c5}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#fff;color:var(--fg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Liberation Sans",
"DejaVu Sans",Arial,sans-serif}
main{max-width:1280px;margin:0 auto;padding:28px clamp(12px,3vw,40px) 56px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",
"DejaVu Sans Mono",monospace;font-size:13px}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
header h1{font-size:28px;line-height:1.2;margin:0 0 6px;letter-spacing:-.01em}
.sub{color:var(--muted);margin:2px 0}
.sub code{background:var(--soft);padding:1px 5px;border-radius:4px;word-break:break-all}
.chips{display:flex;flex-wrap:wrap;gap:10px;margin:16px 0 4px}
.chip{display:flex;flex-direction:column;min-width:92px;padding:8px 14px;border:1px solid
var(--line);border-radius:10px;background:var(--soft);color:var(--muted);font-size:13px}
.chip b{font-size:22px;line-height:1.2;color:var(--fg);font-variant-numeric:tabular-nums}
a.chip:hover{text-decoration:none;border-color:var(--accent)}
.chip.warn{background:var(--warnbg);border-color:#e6c54f}
.chip.warn b{color:var(--warn)}
.chip.okchip b{color:var(--good)}
nav{position:sticky;top:0;z-index:1;display:flex;flex-wrap:wrap;gap:4px 18px;margin:18px 0 0;
padding:10px 0;background:rgba(255,255,255,.96);border-bottom:1px solid var(--line);font-size:14px}
section{margin-top:34px}
h2{font-size:21px;margin:0 0 8px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:18px 0 8px}
.intro{color:var(--muted);max-width:92ch;margin:0 0 14px}
.intro code{background:var(--soft);padding:0 4px;border-radius:4px}
.grid{display:grid;gap:16px;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr))}
.grid.wide{grid-template-columns:1fr}
.card{border:1px solid var(--line);border-radius:10px;background:#fff;overflow:hidden;margin:0;
box-shadow:0 1px 2px rgba(31,35,40,.04)}
.card h3{margin:0;padding:9px 14px;background:var(--soft);border-bottom:1px solid var(--line)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:14px}
th,td{padding:6px 12px;text-align:right;white-space:nowrap;border-bottom:1px solid #eef1f4;
vertical-align:top}
tr:last-child>th,tr:last-child>td{border-bottom:0}
thead th{font-size:12.5px;font-weight:600;color:var(--muted);background:#fff;
border-bottom:1px solid var(--line);white-space:normal;vertical-align:bottom}
tbody th{text-align:left;font-weight:500}
th:first-child{text-align:left}
tbody tr:nth-child(even){background:#fafbfc}
.left{text-align:left}
th.ref,td.ref{color:var(--ref);background:var(--refbg)}
.tag{display:block;font-size:10.5px;font-weight:500;text-transform:uppercase;letter-spacing:.04em}
.badge{display:inline-block;margin-left:6px;padding:0 6px;border-radius:9px;font-size:11.5px;
background:var(--warnbg);color:var(--warn);border:1px solid #e6c54f}
.badge.baddata{background:#fff5f5;color:var(--bad);border-color:var(--bad);font-weight:600}
td.baddata{color:var(--bad);background:#fff5f5}
.good{color:var(--good);font-weight:600}
.bad{color:var(--bad);font-weight:600}
.muted{color:var(--muted)}
table.facts th,table.facts td{text-align:left;white-space:normal}
table.cmp small{display:block;font-size:11.5px;font-weight:400;white-space:normal}
table.cmp small span{white-space:nowrap}
th.base,td.base{background:var(--soft)}
.grid.figs{grid-template-columns:repeat(auto-fill,minmax(min(100%,480px),1fr))}
.caption{color:var(--muted);font-size:13px;margin:8px 0 16px}
table.facts td code{word-break:break-all}
td.text{min-width:28ch}
tr.warning td{background:#fffdf0}
tr.error td{background:#fff5f5}
tr.error td.text{color:var(--bad)}
table.runs td.cmd{width:70%}
td.cmd pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);
padding:6px 9px;border-radius:6px}
details{margin-top:4px}
summary{cursor:pointer;color:var(--muted);font-size:13px}
details pre{max-height:320px;overflow:auto;margin:4px 0 0}
figure{padding:6px}
figure svg{display:block;width:100%;height:auto}
.note{color:var(--muted)}
.missing{padding:10px 14px;border-radius:8px;background:var(--warnbg);color:var(--warn)}
.ok{color:var(--good)}
footer{margin-top:40px;padding-top:12px;border-top:1px solid var(--line);color:var(--muted);
font-size:13px}
@media (max-width:640px){body{font-size:14px}header h1{font-size:23px}th,td{padding:5px 8px}}
@media print{nav{display:none}.card{break-inside:avoid;box-shadow:none}section{margin-top:20px}}
"""
