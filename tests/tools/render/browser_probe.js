// Measures a report after Chromium has laid it out; the browser tests (browser_*_test.cpp) append
// this to a copy of the page inside a <script> and read the result back with --dump-dom, as JSON in
// a JSON script element with the id browser-probe. Plain JavaScript, nothing fetched.
//
// What it records, one list per rule, so that the C++ side names chart, label and rule:
//   charts:      every svg.chart, its rendered box and how many shapes inside it are painted;
//   overlaps:    pairs of text labels (SVG <text>, HTML text) whose boxes intersect by more than
//                1 px in both axes;
//   small_text:  chart labels drawn smaller than 12 px (computed font size times the SVG's scale);
//   low_contrast: chart labels whose colour has under 4.5:1 contrast (WCAG 2) against what they are
//                drawn on: the shapes painted before them under their centre, over the page's white;
//   overflow:    the page's scroll width, the outermost elements whose right edge passes the
//                viewport, and the boxes whose content is wider than they are (they scroll);
//   legends:     every legend entry and how many drawn elements stand for what it names.
(function () {
  'use strict';
  // The rules' thresholds; the C++ tests print them in their messages.
  const kMinChartWidthPx = 100, kMinChartHeightPx = 50;
  const kOverlapTolerancePx = 1;  // anti-aliasing and rounding: boxes that touch do not overlap
  const kMinFontPx = 12;
  const kMinContrast = 4.5;  // WCAG 2 level AA for normal text

  const result = {charts: [], overlaps: [], small_text: [], low_contrast: [], overflow: {}, legends: []};
  const chartOf = (e) => {
    const chart = e.closest('svg.chart, [data-chart]');
    return chart ? (chart.dataset.chart || '(unnamed chart)') : '(page)';
  };
  const nonEmpty = (box) => box.width > 0 && box.height > 0;
  const labelText = (e) => (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 80);
  const round1 = (v) => Math.round(v * 10) / 10;

  // Charts: present, with a size, and with painted shapes (what a blank or collapsed SVG lacks).
  const kShapes = 'rect,circle,ellipse,line,polyline,polygon,path';
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    let painted = 0;
    for (const shape of svg.querySelectorAll(kShapes)) {
      if (shape.closest('defs, pattern, clipPath, mask, marker')) continue;
      const b = shape.getBoundingClientRect();
      const style = getComputedStyle(shape);
      const inked = style.fill !== 'none' || style.stroke !== 'none';
      if (inked && style.visibility !== 'hidden' && style.display !== 'none' && (b.width > 0 || b.height > 0)) painted++;
    }
    result.charts.push({chart: svg.dataset.chart || '(unnamed chart)', width: round1(box.width),
                        height: round1(box.height), painted: painted});
  }

  // Text labels: every SVG <text>, and every HTML element of the page with text of its own (an
  // HTML legend or caption beside a chart must not cover it either).
  const labels = [];
  for (const e of document.querySelectorAll('text')) labels.push(e);
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg')) continue;
    const ownText = Array.from(e.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (ownText) labels.push(e);
  }
  // An HTML element's label is its own text, not its box (a block is as wide as the page).
  const textBox = (e) => {
    if (e instanceof SVGElement) return e.getBoundingClientRect();
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (const n of e.childNodes) {
      if (n.nodeType !== Node.TEXT_NODE || !n.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) {
        if (!nonEmpty(r)) continue;
        left = Math.min(left, r.left); top = Math.min(top, r.top);
        right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
      }
    }
    return right > left ? {left: left, top: top, right: right, bottom: bottom, width: right - left, height: bottom - top}
                        : {left: 0, top: 0, right: 0, bottom: 0, width: 0, height: 0};
  };
  const boxes = [];
  for (const e of labels) {
    const b = textBox(e);
    if (!nonEmpty(b) || !labelText(e)) continue;
    boxes.push({e: e, b: b, chart: chartOf(e), text: labelText(e)});
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].b, c = boxes[j].b;
      const dx = Math.min(a.right, c.right) - Math.max(a.left, c.left);
      const dy = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
      // An element holds the text of those inside it: <p>a <b>b</b></p> is one label, not two.
      const nested = boxes[i].e.contains(boxes[j].e) || boxes[j].e.contains(boxes[i].e);
      if (!nested && dx > kOverlapTolerancePx && dy > kOverlapTolerancePx) {
        result.overlaps.push({chart: boxes[i].chart, a: boxes[i].text, chart_b: boxes[j].chart, b: boxes[j].text,
                              dx: round1(dx), dy: round1(dy)});
      }
    }
  }

  // Size and colour of chart labels. An SVG drawn smaller than its viewBox shrinks its text with it,
  // so the size that counts is the computed one times the element's scale on screen.
  const parseColour = (text) => {
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(text || '');
    return m ? {r: +m[1], g: +m[2], b: +m[3], a: m[4] === undefined ? 1 : +m[4]} : null;
  };
  const luminance = (c) => {
    const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  };
  const white = {r: 255, g: 255, b: 255};
  const over = (c, alpha, under) => ({r: c.r * alpha + under.r * (1 - alpha), g: c.g * alpha + under.g * (1 - alpha),
                                      b: c.b * alpha + under.b * (1 - alpha)});
  const opacityOf = (e) => {
    let alpha = 1;
    for (let p = e; p && p.nodeType === Node.ELEMENT_NODE; p = p.parentElement) alpha *= parseFloat(getComputedStyle(p).opacity);
    return alpha;
  };
  // An SVG fill as a colour: a plain colour, or a pattern's first painted rectangle (its ground).
  const fillColour = (style) => {
    const pattern = /url\("?#([^")]+)"?\)/.exec(style.fill || '');
    if (!pattern) return parseColour(style.fill);
    const ground = document.getElementById(pattern[1]);
    const rect = ground ? ground.querySelector('rect') : null;
    return rect ? parseColour(getComputedStyle(rect).fill) : null;
  };
  // What an SVG label is drawn on: each shape of its chart painted before it (document order) whose
  // box holds the label's centre, composed over white. Collected once per chart.
  const grounds = new Map();
  const groundOf = (svg) => {
    if (grounds.has(svg)) return grounds.get(svg);
    const shapes = [];
    for (const s of svg.querySelectorAll(kShapes)) {
      if (s.closest('defs, pattern, clipPath, mask, marker')) continue;
      const style = getComputedStyle(s);
      const colour = fillColour(style);
      if (!colour || style.visibility === 'hidden' || style.display === 'none') continue;
      shapes.push({e: s, box: s.getBoundingClientRect(), colour: colour,
                   alpha: colour.a * parseFloat(style.fillOpacity) * opacityOf(s)});
    }
    grounds.set(svg, shapes);
    return shapes;
  };
  const backgroundOf = (e, b) => {
    if (!(e instanceof SVGElement) || !e.ownerSVGElement) return white;
    const cx = (b.left + b.right) / 2, cy = (b.top + b.bottom) / 2;
    let under = white;
    for (const s of groundOf(e.ownerSVGElement)) {
      if (!(s.e.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING)) break;  // painted after the label
      if (cx >= s.box.left && cx <= s.box.right && cy >= s.box.top && cy <= s.box.bottom) under = over(s.colour, s.alpha, under);
    }
    return under;
  };
  for (const {e, b, chart, text} of boxes) {
    if (chart === '(page)') continue;
    const style = getComputedStyle(e);
    const inSvg = e instanceof SVGElement;
    let scale = 1;
    if (inSvg && e.getScreenCTM()) { const m = e.getScreenCTM(); scale = Math.hypot(m.a, m.b); }
    const px = parseFloat(style.fontSize) * scale;
    if (px < kMinFontPx - 0.05) result.small_text.push({chart: chart, label: text, px: round1(px)});
    const colour = parseColour(inSvg ? style.fill : style.color);
    if (!colour) {
      result.low_contrast.push({chart: chart, label: text, colour: inSvg ? style.fill : style.color, ratio: 0});
      continue;
    }
    // The label's colour blended by its own alpha and opacities over what it is drawn on.
    const under = backgroundOf(e, b);
    const seen = over(colour, colour.a * (inSvg ? parseFloat(style.fillOpacity) : 1) * opacityOf(e), under);
    const [light, dark] = [luminance(seen), luminance(under)].sort((x, y) => y - x);
    const ratio = (light + 0.05) / (dark + 0.05);
    if (ratio < kMinContrast) {
      const colourText = (inSvg ? style.fill : style.color) + ' on rgb(' + [under.r, under.g, under.b].map(Math.round).join(', ') + ')';
      result.low_contrast.push({chart: chart, label: text, colour: colourText, ratio: round1(ratio * 100) / 100});
    }
  }

  // Overflow: the page must not scroll sideways, and no element may reach past the viewport's
  // right edge (one inside a scrolling box is cut off there too). Only the outermost offender of
  // each subtree is listed: its children are beyond the edge because it is.
  const viewport = document.documentElement.clientWidth;
  result.overflow = {scroll_width: document.documentElement.scrollWidth, viewport: viewport, beyond: []};
  const describe = (e) => {
    const chart = e.closest('[data-chart]');
    let name = e.tagName.toLowerCase();
    if (e.getAttribute('class')) name += '.' + e.getAttribute('class').trim().split(/\s+/).join('.');
    if (chart) name += ' in chart ' + chart.dataset.chart;
    return name;
  };
  result.overflow.scrolls = [];
  const walk = (e) => {
    const b = e.getBoundingClientRect();
    if (nonEmpty(b) && b.right > viewport + 0.5) {
      result.overflow.beyond.push({element: describe(e), right: round1(b.right)});
      return;
    }
    // A box whose content is wider than itself (it scrolls or clips sideways) hides that content
    // past its edge: the same overflow, inside the page. Named after the chart it holds, if any.
    if (!(e instanceof SVGElement) && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible') {
      const inner = e.closest('[data-chart]') || e.querySelector('svg.chart, [data-chart]');
      result.overflow.scrolls.push({element: describe(e), chart: inner ? inner.dataset.chart : '(page)',
                                    content: e.scrollWidth, box: e.clientWidth});
    }
    if (e instanceof SVGElement && e.tagName.toLowerCase() === 'svg') return;  // its box bounds its shapes
    for (const child of e.children) walk(child);
  };
  walk(document.body);

  // Legends: an entry marked data-legend="KIND" needs a drawn element marked data-kind="KIND"
  // (its own swatch does not count). An entry left unmarked
  // (a <text class="legend">) is checked by its swatch's fill instead: some drawn shape of the
  // same chart, other than the swatches, must have that fill.
  // Drawn: a box with an extent (a horizontal or vertical line has one side 0).
  const drawn = (e) => { const b = e.getBoundingClientRect(); return b.width > 0 || b.height > 0; };
  // A legend's own swatch: inside the entry, or the element just before a marked entry.
  const isLegend = (e) => e.closest('[data-legend], .legend') ||
                          (e.nextElementSibling && e.nextElementSibling.matches('[data-legend]'));
  for (const entry of document.querySelectorAll('[data-legend]')) {
    const kind = entry.dataset.legend;
    let count = 0;
    for (const e of document.querySelectorAll('[data-kind]')) {
      if (e.dataset.kind === kind && !isLegend(e) && drawn(e)) count++;
    }
    result.legends.push({chart: chartOf(entry), label: labelText(entry) || kind, kind: kind, marked: true, drawn: count});
  }
  for (const entry of document.querySelectorAll('svg.chart text.legend:not([data-legend])')) {
    if (entry.closest('[data-legend]')) continue;
    const swatch = entry.previousElementSibling;
    const fill = swatch ? swatch.getAttribute('fill') : null;
    let count = 0;
    const svg = entry.closest('svg.chart');
    for (const e of svg.querySelectorAll(kShapes)) {
      if (e === swatch || e.closest('defs, pattern') || !fill) continue;
      const next = e.nextElementSibling;
      const isSwatch = next && next.matches('text.legend');
      if (!isSwatch && e.getAttribute('fill') === fill && drawn(e)) count++;
    }
    result.legends.push({chart: chartOf(entry), label: labelText(entry), kind: 'fill ' + fill, marked: false, drawn: count});
  }

  const out = document.createElement('script');
  out.type = 'application/json';
  out.id = 'browser-probe';
  // '<' escaped so that no label can end the script element early.
  out.textContent = JSON.stringify(result).replace(/</g, '\\u003c');
  document.body.appendChild(out);
})();
