import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileSpans, parseCoverage, summary } from '../src/coverage';

// As cmcdap coverage -json prints a run checked with -cover (cut down to what the editor reads).
const out = {
  branching: 2.75,
  run: 4,
  measured: true,
  transitions: 33,
  expanded: 12,
  events: [{ event: 'c.inc', site: '/m/covered.go:23', runs: 9 }],
  coverage: {
    statements: 5,
    covered: 3,
    files: [
      {
        file: '/m/covered.go',
        statements: 5,
        covered: 3,
        blocks: [
          { start_line: 23, start_col: 22, end_line: 25, end_col: 17, stmts: 2, covered: true },
          { start_line: 25, start_col: 17, end_line: 27, end_col: 4, stmts: 1, covered: false },
          { start_line: 28, start_col: 2, end_line: 28, end_col: 3, stmts: 0, covered: false },
          { start_line: 29, start_col: 23, end_line: 29, end_col: 54, stmts: 1, covered: true },
          { start_line: 40, start_col: 1, end_line: 40, end_col: 9, stmts: 1, covered: false },
        ],
      },
    ],
    handlers: [],
    growth: [{ transitions: 33, covered: 3, lines: 4 }],
  },
};

test('a measured file is split into covered and uncovered spans, 0-based, blocks without statements left out', () => {
  const r = parseCoverage(out);
  const s = fileSpans(r, '/m/covered.go')!;
  assert.deepEqual(s.covered, [
    { startLine: 22, startChar: 21, endLine: 24, endChar: 16 },
    { startLine: 28, startChar: 22, endLine: 28, endChar: 53 },
  ]);
  assert.deepEqual(s.uncovered, [
    { startLine: 24, startChar: 16, endLine: 26, endChar: 3 },
    { startLine: 39, startChar: 0, endLine: 39, endChar: 8 },
  ]);
  assert.equal(fileSpans(r, '/m/other.go'), undefined, 'a file the run did not measure gets no decorations');
  assert.equal(summary(r), 'cmc: run 4 covered 60.0% of statements (3 of 5) in 1 file, 33 transitions');
});

test('a run checked without coverage, or output of another shape, is an error that says what to do', () => {
  assert.throws(() => parseCoverage({ ...out, measured: false }), /run 4 did not measure coverage: check with the launch attribute "coverage": true/);
  assert.throws(() => parseCoverage([]), /unexpected output from cmcdap coverage -json/);
});

test('Windows paths match whatever the drive letter case', () => {
  const r = parseCoverage({ ...out, coverage: { ...out.coverage, files: [{ ...out.coverage.files[0], file: 'c:\\m\\covered.go' }] } });
  assert.ok(fileSpans(r, 'C:\\m\\covered.go'));
});
