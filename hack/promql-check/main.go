// Command promql-check evaluates PromQL queries against scraped Prometheus expositions, the way a
// Prometheus that had scraped them would answer: the scrapes are parsed with Prometheus's own
// scrape parser (model/textparse), labelled with a job and an instance as a scrape target's series
// are, and kept in memory with what the scrape loop adds (`up` = 1 at every scrape, a staleness
// marker for a series a later scrape lacks); each query is run by Prometheus's own engine (promql)
// as an instant query at the time of the last scrape.
//
// Usage:
//
//	promql-check -job JOB -instance HOST:PORT -scrape MILLIS=FILE [-scrape MILLIS=FILE ...] < queries.json
//
// queries.json is a JSON array of query strings. The answer, on stdout, is a JSON array with one
// object per query: {"query", "error", "series", "sample", "value"}: the parse or evaluation error
// ("" when none), how many series (or 1 for a scalar) the result holds, and the labels and value of
// its first series.
// The exit code is 0 whenever every scrape was read, whatever the queries answered.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/promql"
)

type scrapeFlag []string

func (s *scrapeFlag) String() string     { return strings.Join(*s, ",") }
func (s *scrapeFlag) Set(v string) error { *s = append(*s, v); return nil }

type answer struct {
	Query  string            `json:"query"`
	Error  string            `json:"error"`
	Series int               `json:"series"`
	Sample map[string]string `json:"sample,omitempty"`
	Value  string            `json:"value,omitempty"`
}

func main() {
	var scrapes scrapeFlag
	job := flag.String("job", "dynamo-operator", "the job label every scraped series gets")
	instance := flag.String("instance", "localhost", "the instance label every scraped series gets")
	contentType := flag.String("content-type", "text/plain; version=0.0.4", "media type of the scrapes")
	lookback := flag.Duration("lookback-delta", 5*time.Minute, "how far back an instant selector looks")
	flag.Var(&scrapes, "scrape", "MILLIS=FILE: an exposition scraped at that Unix time in milliseconds (repeat, in time order)")
	flag.Parse()
	if len(scrapes) == 0 {
		fail(errors.New("at least one -scrape MILLIS=FILE is needed"))
	}

	store := newMemoryStorage()
	target := labels.FromStrings("job", *job, "instance", *instance)
	var last int64
	for _, spec := range scrapes {
		millis, path, found := strings.Cut(spec, "=")
		if !found {
			fail(fmt.Errorf("-scrape %q: expected MILLIS=FILE", spec))
		}
		at, err := strconv.ParseInt(millis, 10, 64)
		if err != nil {
			fail(fmt.Errorf("-scrape %q: %w", spec, err))
		}
		body, err := os.ReadFile(path)
		if err != nil {
			fail(err)
		}
		if err := store.ingest(body, *contentType, at, target); err != nil {
			fail(fmt.Errorf("scrape %s: %w", path, err))
		}
		last = at
	}

	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var queries []string
	if err := json.Unmarshal(input, &queries); err != nil {
		fail(fmt.Errorf("stdin: a JSON array of queries is expected: %w", err))
	}

	engine := promql.NewEngine(promql.EngineOpts{
		MaxSamples:           50_000_000,
		Timeout:              time.Minute,
		LookbackDelta:        *lookback,
		EnableAtModifier:     true,
		EnableNegativeOffset: true,
	})
	answers := make([]answer, 0, len(queries))
	for _, query := range queries {
		answers = append(answers, evaluate(engine, store, query, time.UnixMilli(last)))
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(answers); err != nil {
		fail(err)
	}
}

func evaluate(engine *promql.Engine, store *memoryStorage, query string, at time.Time) answer {
	result := answer{Query: query}
	// The engine parses the query first: a syntax error comes back from NewInstantQuery.
	instant, err := engine.NewInstantQuery(context.Background(), store, nil, query, at)
	if err != nil {
		result.Error = err.Error()
		return result
	}
	defer instant.Close()
	evaluated := instant.Exec(context.Background())
	if evaluated.Err != nil {
		result.Error = evaluated.Err.Error()
		return result
	}
	switch v := evaluated.Value.(type) {
	case promql.Vector:
		result.Series = len(v)
		if len(v) > 0 {
			result.Sample = v[0].Metric.Map()
			result.Value = strconv.FormatFloat(v[0].F, 'g', -1, 64)
		}
	case promql.Matrix:
		result.Series = len(v)
		if len(v) > 0 {
			result.Sample = v[0].Metric.Map()
		}
	case promql.Scalar:
		result.Series = 1
		result.Value = strconv.FormatFloat(v.V, 'g', -1, 64)
	case promql.String:
		result.Series = 1
	default:
		result.Error = fmt.Sprintf("unexpected result type %T", v)
	}
	return result
}

// ingest adds one scrape taken at `at` (milliseconds): every sample at that time, `up`, and a
// staleness marker for each series an earlier scrape had and this one lacks.
func (m *memoryStorage) ingest(body []byte, contentType string, at int64, target labels.Labels) error {
	p, err := textparse.New(body, contentType, labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for {
		entry, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if entry != textparse.EntrySeries {
			continue // types, help, comments; text expositions hold no native histograms
		}
		_, _, v := p.Series()
		var lset labels.Labels
		p.Labels(&lset)
		builder := labels.NewBuilder(lset)
		target.Range(func(l labels.Label) {
			if builder.Get(l.Name) == "" {
				builder.Set(l.Name, l.Value)
			}
		})
		key := m.add(builder.Labels(), at, v)
		seen[key] = true
	}
	// The scrape loop's own series: the target answered.
	seen[m.add(labels.NewBuilder(target).Set(labels.MetricName, "up").Labels(), at, 1)] = true
	for key, s := range m.series {
		if !seen[key] && len(s.samples) > 0 && s.samples[len(s.samples)-1].t < at {
			s.samples = append(s.samples, sample{t: at, f: math.Float64frombits(value.StaleNaN)})
		}
	}
	return nil
}

func (m *memoryStorage) add(lset labels.Labels, t int64, f float64) string {
	key := lset.String()
	s, ok := m.series[key]
	if !ok {
		s = &series{labels: lset}
		m.series[key] = s
		m.order = append(m.order, key)
		sort.Strings(m.order)
	}
	s.samples = append(s.samples, sample{t: t, f: f})
	return key
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "promql-check:", err)
	os.Exit(2)
}
