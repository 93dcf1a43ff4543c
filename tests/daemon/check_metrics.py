#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Checks the Prometheus text exposition (format 0.0.4) that cuzk serves on /metrics.

usage: check_metrics.py URL [--expect 'name{label="v",...}=VALUE' ...] [--present FAMILY ...]

The text is fetched once and checked twice: by prometheus_client's parser (it must parse, and
every family it finds must carry the HELP and TYPE the text declared), and by the rules of the
format itself:
  - HTTP 200, Content-Type starting with "text/plain; version=0.0.4", text ending in a newline;
  - "# HELP name text" and "# TYPE name type" once per family, both before its first sample,
    the type one of counter, gauge, histogram, summary, untyped;
  - metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (not
    starting with "__", none twice in one sample), label values properly quoted and escaped;
  - every sample belongs to a declared family, and a family's lines form one group;
  - values are floats as Prometheus writes them (NaN, +Inf, -Inf allowed), counters >= 0;
  - no two samples with the same name and labels;
  - both parsers find the same samples with the same values.
And by Prometheus's naming conventions (the lint of promtool check metrics, and more):
  - names and label names in snake_case, a namespace prefix (cuzk_ or process_);
  - counters end in _total, nothing else does; no type or "count" word as a unit;
  - units in names as base units: _seconds, _bytes, _ratio (never _ms, _milliseconds, _kb, _mb,
    _percent, ...), and a unit word where the name says what is measured (time, memory, size);
  - the process_* families every client exports are present.
Each --expect names one sample (labels in any order) and the value it must have; each
--present names a family that must have at least one sample.
Prints what it checked; exits 0 if all is well, 1 on any problem, 2 on bad usage.
"""

import math
import re
import sys
import urllib.request

NAME_RE = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL_RE = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
VALUE_RE = re.compile(r'^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|NaN|[+-]Inf)$')
TYPES = ('counter', 'gauge', 'histogram', 'summary', 'untyped')
SUFFIXES = {'histogram': ('_bucket', '_sum', '_count'), 'summary': ('_sum', '_count')}


class SampleError(Exception):
    pass


def parse_value(text):
    if not VALUE_RE.match(text):
        raise SampleError('value %r is not a float' % text)
    return float(text.replace('Inf', 'inf'))


def parse_sample(line):
    """name, {label: value}, value text, timestamp text or None; SampleError if malformed."""
    m = NAME_RE.match(line)
    if not m:
        raise SampleError('no metric name')
    name, pos, labels = m.group(0), m.end(), {}
    if pos < len(line) and line[pos] == '{':
        pos += 1
        while True:
            while pos < len(line) and line[pos] == ' ':
                pos += 1
            if pos < len(line) and line[pos] == '}':
                pos += 1
                break
            lm = LABEL_RE.match(line, pos)
            if not lm:
                raise SampleError('bad label name at column %d' % pos)
            lname = lm.group(0)
            if lname.startswith('__'):
                raise SampleError('label name %s is reserved' % lname)
            if lname in labels:
                raise SampleError('label %s given twice' % lname)
            pos = lm.end()
            if line[pos:pos + 2] != '="':
                raise SampleError('label %s lacks ="value"' % lname)
            pos += 2
            value = []
            while True:
                if pos >= len(line):
                    raise SampleError('unterminated value of label %s' % lname)
                c = line[pos]
                if c == '"':
                    pos += 1
                    break
                if c == '\\':
                    esc = line[pos + 1:pos + 2]
                    if esc not in ('\\', '"', 'n'):
                        raise SampleError('bad escape \\%s in label %s' % (esc, lname))
                    value.append('\n' if esc == 'n' else esc)
                    pos += 2
                    continue
                value.append(c)
                pos += 1
            labels[lname] = ''.join(value)
            if pos < len(line) and line[pos] == ',':
                pos += 1
            elif pos < len(line) and line[pos] == '}':
                pos += 1
                break
            else:
                raise SampleError('expected , or } after label %s' % lname)
    rest = line[pos:]
    if not rest.startswith(' ') and not rest.startswith('\t'):
        raise SampleError('no blank between name/labels and value')
    parts = rest.split()
    if len(parts) not in (1, 2):
        raise SampleError('expected "value [timestamp]", got %r' % rest.strip())
    parse_value(parts[0])
    if len(parts) == 2 and not re.match(r'^-?\d+$', parts[1]):
        raise SampleError('timestamp %r is not an integer' % parts[1])
    return name, labels, parts[0], parts[1] if len(parts) == 2 else None


def key(name, labels):
    return (name, tuple(sorted(labels.items())))


def show(name, labels):
    if not labels:
        return name
    return '%s{%s}' % (name, ','.join('%s="%s"' % kv for kv in sorted(labels.items())))


def main(argv):
    if len(argv) < 1 or argv[0].startswith('-'):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    url, expects, present, i = argv[0], [], [], 1
    while i < len(argv):
        if argv[i] == '--present' and i + 1 < len(argv):
            present.append(argv[i + 1])
            i += 2
            continue
        if argv[i] == '--expect' and i + 1 < len(argv):
            spec = argv[i + 1]
            sample, sep, value = spec.rpartition('=')
            try:
                if not sep:
                    raise SampleError('no =VALUE')
                name, labels, _, _ = parse_sample(sample + ' 0')
                expects.append((name, labels, parse_value(value)))
            except SampleError as e:
                print('check_metrics: bad --expect %r: %s' % (spec, e), file=sys.stderr)
                return 2
            i += 2
        else:
            print('check_metrics: unknown argument %r' % argv[i], file=sys.stderr)
            return 2

    problems = []

    def problem(msg):
        problems.append(msg)
        print('  problem: ' + msg)

    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            status = resp.status
            ctype = resp.headers.get('Content-Type', '')
            body = resp.read()
    except Exception as e:  # noqa: BLE001 - any failure to fetch is the one problem to report
        print('check_metrics: cannot fetch %s: %s' % (url, e))
        return 1
    print('fetched %s: HTTP %d, %d bytes, Content-Type: %s' % (url, status, len(body), ctype))
    if status != 200:
        problem('HTTP status %d, expected 200' % status)
    if not ctype.startswith('text/plain; version=0.0.4'):
        problem('Content-Type %r does not start with "text/plain; version=0.0.4"' % ctype)
    try:
        text = body.decode('utf-8')
    except UnicodeDecodeError as e:
        print('check_metrics: the text is not UTF-8: %s' % e)
        return 1
    if not text.endswith('\n'):
        problem('the text does not end with a newline')

    # The format's own rules, line by line.
    helps, types = {}, {}
    samples = {}            # key -> float value
    family_of_sample = []   # family names in order of samples, to check grouping
    for lineno, line in enumerate(text.split('\n')[:-1] if text.endswith('\n') else text.split('\n'), 1):
        where = 'line %d' % lineno
        if line.strip() == '':
            continue
        if line.startswith('#'):
            parts = line.split(None, 3)
            if len(parts) >= 2 and parts[1] in ('HELP', 'TYPE'):
                if len(parts) < 3 or not NAME_RE.fullmatch(parts[2]):
                    problem('%s: %s without a valid metric name: %r' % (where, parts[1], line))
                    continue
                fam = parts[2]
                if fam in family_of_sample:
                    problem('%s: %s %s after samples of that family' % (where, parts[1], fam))
                table = helps if parts[1] == 'HELP' else types
                if fam in table:
                    problem('%s: second %s line for %s' % (where, parts[1], fam))
                arg = parts[3] if len(parts) == 4 else ''
                if parts[1] == 'HELP':
                    if arg.strip() == '':
                        problem('%s: empty HELP for %s' % (where, fam))
                    helps[fam] = arg
                else:
                    if arg not in TYPES:
                        problem('%s: TYPE %r of %s is not one of %s' % (where, arg, fam, ', '.join(TYPES)))
                    types[fam] = arg
            continue
        try:
            name, labels, vtext, _ = parse_sample(line)
        except SampleError as e:
            problem('%s: %s: %r' % (where, e, line))
            continue
        value = parse_value(vtext)
        fam = None
        for cand in [name] + [name[:-len(s)] for t in SUFFIXES.values() for s in t if name.endswith(s)]:
            if cand in types and (cand == name or name[len(cand):] in SUFFIXES.get(types[cand], ())):
                fam = cand
                break
        if fam is None:
            problem('%s: sample %s has no TYPE line before it' % (where, name))
            fam = name
        elif fam not in helps:
            problem('%s: sample %s has no HELP line before it' % (where, name))
        if family_of_sample and family_of_sample[-1] != fam and fam in family_of_sample:
            problem('%s: samples of %s are not grouped together' % (where, fam))
        family_of_sample.append(fam)
        if types.get(fam) == 'counter' and (math.isnan(value) or value < 0):
            problem('%s: counter %s has value %s' % (where, show(name, labels), vtext))
        k = key(name, labels)
        if k in samples:
            problem('%s: duplicate sample %s' % (where, show(name, labels)))
        samples[k] = value
    for fam in helps:
        if fam not in types:
            problem('HELP for %s without a TYPE line' % fam)
    # Histograms: per label set, buckets cumulative in le, a +Inf bucket equal to _count, a _sum.
    for fam, ty in types.items():
        if ty != 'histogram':
            continue
        series = {}
        for (name, labels), value in samples.items():
            if name == fam + '_bucket':
                rest = tuple(kv for kv in labels if kv[0] != 'le')
                le = dict(labels).get('le')
                if le is None:
                    problem('histogram %s: bucket %s without le' % (fam, show(name, dict(labels))))
                    continue
                series.setdefault(rest, []).append((parse_value(le), value))
        nseries = 0
        for rest, buckets in series.items():
            nseries += 1
            buckets.sort()
            counts = [v for _, v in buckets]
            if any(b < a for a, b in zip(counts, counts[1:])):
                problem('histogram %s%s: buckets are not cumulative: %s' % (fam, dict(rest), counts))
            if not buckets or buckets[-1][0] != math.inf:
                problem('histogram %s%s: no le="+Inf" bucket' % (fam, dict(rest)))
            cnt = samples.get(key(fam + '_count', dict(rest)))
            if cnt is None or (buckets and cnt != buckets[-1][1]):
                problem('histogram %s%s: _count %r is not the +Inf bucket' % (fam, dict(rest), cnt))
            if samples.get(key(fam + '_sum', dict(rest))) is None:
                problem('histogram %s%s: no _sum' % (fam, dict(rest)))
        print('histogram %s: %d series, buckets cumulative, +Inf = _count' % (fam, nseries))
    nfam = len(set(family_of_sample))
    print('format rules: %d families (%s), %d samples' % (
        nfam, ', '.join('%d %s' % (sum(1 for t in types.values() if t == ty), ty)
                        for ty in TYPES if ty in types.values()), len(samples)))

    # prometheus_client's parser.
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError as e:
        problem('prometheus_client is not installed (%s)' % e)
    else:
        try:
            families = list(text_string_to_metric_families(text))
        except Exception as e:  # noqa: BLE001 - the parser raises ValueError and others
            problem('prometheus_client cannot parse the text: %s' % e)
            families = None
        theirs = {}
        for f in families or []:
            if f.type == 'untyped' and 'untyped' not in types.values():
                problem('prometheus_client sees %s as untyped (no TYPE matched its samples)' % f.name)
            if f.documentation == '':
                problem('prometheus_client sees no HELP for %s' % f.name)
            for s in f.samples:
                k = key(s.name, s.labels)
                if k in theirs:
                    problem('prometheus_client: duplicate sample %s' % show(s.name, s.labels))
                theirs[k] = s.value
        if families:
            print('prometheus_client: %d families, %d samples' % (len(families), len(theirs)))
            if set(theirs) != set(samples):
                only_a = sorted(set(samples) - set(theirs))
                only_b = sorted(set(theirs) - set(samples))
                problem('the parsers disagree on the samples: only in the text rules %s, only in prometheus_client %s'
                        % (only_a[:5], only_b[:5]))
            for k in set(theirs) & set(samples):
                a, b = samples[k], theirs[k]
                if not (a == b or (math.isnan(a) and math.isnan(b))):
                    problem('the parsers disagree on %s: %r vs %r' % (show(k[0], dict(k[1])), a, b))
        if families is not None and len(families) != nfam:
            problem('prometheus_client found %d families, the text rules %d' % (len(families), nfam))

    # Naming conventions.
    snake = re.compile(r'^[a-z][a-z0-9]*(_[a-z0-9]+)*$')
    bad_units = ('_ms', '_msec', '_milliseconds', '_us', '_microseconds', '_ns', '_nanoseconds', '_minutes', '_hours',
                 '_kb', '_mb', '_gb', '_kib', '_mib', '_gib', '_kilobytes', '_megabytes', '_percent', '_pct')
    for fam, ty in types.items():
        if not snake.match(fam):
            problem('naming: %s is not snake_case' % fam)
        if not (fam.startswith('cuzk_') or fam.startswith('process_')):
            problem('naming: %s has no cuzk_ (or process_) namespace' % fam)
        if ty == 'counter' and not fam.endswith('_total'):
            problem('naming: counter %s does not end in _total' % fam)
        if ty != 'counter' and fam.endswith('_total'):
            problem('naming: %s %s ends in _total (counters only)' % (ty, fam))
        base = fam[:-len('_total')] if fam.endswith('_total') else fam
        for u in bad_units:
            if base.endswith(u) or (u + '_') in base + '_':
                problem('naming: %s uses the unit %s (base units: seconds, bytes, ratio)' % (fam, u[1:]))
        for w in ('_gauge', '_counter', '_histogram', '_summary'):
            if w in fam + '_':
                problem('naming: %s names its type' % fam)
        if any(x in base for x in ('_time', '_duration', '_latency', '_age', '_uptime')) and not base.endswith('_seconds'):
            problem('naming: %s measures time but is not in _seconds' % fam)
        if any(x in base for x in ('_memory', '_size')) and not (base.endswith('_bytes') or base.endswith('_ratio')):
            problem('naming: %s measures memory or size but is not in _bytes' % fam)
    for (name, labels) in samples:
        for lname, _ in labels:
            if lname != 'le' and not snake.match(lname):
                problem('naming: label %s of %s is not snake_case' % (lname, name))
    for fam in present:
        if not any(n == fam or n.startswith(fam + '_') for n, _ in samples):
            problem('family %s has no sample' % fam)
        else:
            print('present: %s' % fam)
    print('naming: %d families checked' % len(types))

    for name, labels, want in expects:
        got = samples.get(key(name, labels))
        if got is None:
            problem('expected sample %s is missing' % show(name, labels))
        elif got != want:
            problem('%s is %r, expected %r' % (show(name, labels), got, want))
        else:
            print('expected: %s = %s' % (show(name, labels), repr(got)))

    if problems:
        print('check_metrics: %d problem(s)' % len(problems))
        return 1
    print('check_metrics: all well')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
