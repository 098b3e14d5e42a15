import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Choice, choicesOf, clip, hoverMarkdown, hoverRows, inlineChoices, maxInline, valueText } from '../src/choices';

const router = '/w/examples/aodv/router.go';
const net = '/w/env/network.go';
// cmcdap sends each site's file as the editor's path and its line (internal/dap/sites.go).
const at = (file: string, line: number) => ({ site: `${file}:${line}`, file, line });
const trace: Choice[] = [
  { step: 1, ...at(net, 70), value: 0, n: 2 },
  { step: 2, ...at(net, 70), value: 1, n: 2 },
  { step: 2, ...at(router, 42), value: 2, n: 3 },
  { step: 2, ...at(router, 42), value: 0, n: 3 },
  { step: 2, ...at(router, 50), value: 1, n: 4 },
  { step: 3, ...at(router, 42), value: 1, n: 3 },
];

test('a site is a document only by the exact path cmcdap resolved it to', () => {
  const moved: Choice[] = [{ step: 1, site: '/home/ci/cmc/examples/aodv/router.go:42', file: router, line: 42, value: 1, n: 2 }];
  assert.deepEqual(inlineChoices(moved, 1, router), [{ line: 41, text: 'Choose → 1 of 2' }]);
  assert.deepEqual(inlineChoices(moved, 1, '/x/other/router.go'), []);
  assert.deepEqual(inlineChoices([{ step: 1, ...at('aodv/router.go', 42), value: 1, n: 2 }], 1, router), []);
});

test('inline values: the step\'s calls, one per line, in call order', () => {
  assert.deepEqual(inlineChoices(trace, 2, router), [
    { line: 41, text: 'Choose → 2 of 3, 0 of 3' },
    { line: 49, text: 'Choose → 1 of 4' },
  ]);
  assert.deepEqual(inlineChoices(trace, 2, net), [{ line: 69, text: 'Choose → 1 of 2' }]);
  assert.deepEqual(inlineChoices(trace, 4, router), []);
  assert.deepEqual(inlineChoices([], 1, router), []);
});

test('hover lists every value the site took so far and marks the current step', () => {
  const md = hoverMarkdown(trace, router, 41, 3)!;
  assert.equal(md, [
    '**cmc.Choose** at `router.go:42`: 3 calls along the trace up to step 3',
    '',
    '- step 2: 2 of 3',
    '- step 2: 0 of 3',
    '- **step 3: 1 of 3** ← this step',
  ].join('\n'));
  assert.equal(hoverMarkdown(trace, router, 10, 3), undefined);
});

test('a long hover keeps the newest rows', () => {
  const many = Array.from({ length: 100 }, (_, i) => ({ step: i + 1, ...at(router, 42), value: i % 2, n: 2 }));
  const md = hoverMarkdown(many, router, 41)!;
  assert.match(md, /^- … 60 earlier calls$/m);
  assert.equal(md.split('\n').filter((l) => /^- step \d+:/.test(l)).length, hoverRows);
  assert.match(md, /- step 100: 1 of 2$/);
});

test('cmcdap\'s own file and line are used when it gives them', () => {
  const c = choicesOf({ choices: [{ step: 1, choice: 1, site: 'odd:site', file: router, line: 42, value: 1, n: 2 }], total: 1 });
  assert.deepEqual(c, [{ step: 1, site: 'odd:site', file: router, line: 42, value: 1, n: 2 }]);
  assert.deepEqual(inlineChoices(c, 1, router), [{ line: 41, text: 'Choose → 1 of 2' }]);
});

test('choices are read from a bare list or a body, bad entries dropped', () => {
  const one = { step: 1, ...at('/a.go', 1), value: 0, n: 2 };
  assert.deepEqual(choicesOf([one]), [one]);
  assert.deepEqual(choicesOf({ choices: [one, { step: 'x' }, null, { step: 1, site: 'a.go:1', value: 0, n: 2 }] }), [one]);
  assert.deepEqual(choicesOf(undefined), []);
});

test('a labelled Choose says what it chose, inline and in the hover', () => {
  const labelled: Choice[] = [
    { step: 1, ...at(router, 42), value: 0, n: 2, label: 'deliver RREP C→A' },
    { step: 2, ...at(router, 42), value: 1, n: 2, label: 'lose *RREQ* A→B' },
  ];
  assert.deepEqual(inlineChoices(labelled, 1, router), [{ line: 41, text: 'Choose → 0 of 2: deliver RREP C→A' }]);
  const md = hoverMarkdown(labelled, router, 41, 2)!;
  assert.match(md, /^- step 1: 0 of 2: deliver RREP C→A$/m);
  assert.match(md, /^- \*\*step 2: 1 of 2: lose \\\*RREQ\\\* A→B\*\* ← this step$/m, 'the label is text, not Markdown');
  assert.equal(valueText({ value: 3, n: 4 }), '3 of 4');
});

test('an inline value is never longer than the editor shows; the hover has the whole label', () => {
  const long = 'deliver RREP{dest=D seq=7 hops=3 lifetime=3000} C→A through the longest route there is';
  const cs: Choice[] = [{ step: 1, ...at(router, 42), value: 0, n: 2, label: long }, { step: 1, ...at(router, 42), value: 1, n: 3 }];
  const [inline] = inlineChoices(cs, 1, router);
  assert.equal([...inline.text].length, maxInline);
  assert.ok(inline.text.startsWith('Choose → 0 of 2: deliver RREP{dest=D') && inline.text.endsWith('…'), inline.text);
  assert.ok(hoverMarkdown(cs, router, 41, 1)!.includes('lifetime=3000} C→A through the longest route there is'));
  assert.equal(clip('Choose → 0 of 2'), 'Choose → 0 of 2');
  assert.equal(clip('abcdef', 4), 'abc…');
});

test('a hint\'s label is kept; a missing or empty one is no label', () => {
  const hint = { step: 1, choice: 1, site: 'examples/aodv/air.go:146', file: router, line: 42, value: 0, n: 2 };
  assert.deepEqual(choicesOf([{ ...hint, label: 'deliver RREP C→A' }])[0].label, 'deliver RREP C→A');
  assert.equal('label' in choicesOf([{ ...hint, label: '' }])[0], false);
  assert.equal('label' in choicesOf([hint])[0], false);
});
