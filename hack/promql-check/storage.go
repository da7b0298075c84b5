package main

import (
	"context"
	"sort"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"
)

// memoryStorage is the smallest storage.Queryable the engine accepts: float samples of a handful
// of scrapes, in memory. Prometheus's TSDB would answer the same and cost far more to build.
type memoryStorage struct {
	series map[string]*series
	order  []string // keys sorted by label set, so selections come out sorted
}

type series struct {
	labels  labels.Labels
	samples []sample
}

func newMemoryStorage() *memoryStorage {
	return &memoryStorage{series: map[string]*series{}}
}

func (m *memoryStorage) Querier(mint, maxt int64) (storage.Querier, error) {
	return &querier{storage: m, mint: mint, maxt: maxt}, nil
}

type querier struct {
	storage    *memoryStorage
	mint, maxt int64
}

func (q *querier) Select(_ context.Context, _ bool, _ *storage.SelectHints, matchers ...*labels.Matcher) storage.SeriesSet {
	var selected []storage.Series
	for _, key := range q.storage.order {
		s := q.storage.series[key]
		if !matchesAll(s.labels, matchers) {
			continue
		}
		var within []chunks.Sample
		for _, smp := range s.samples {
			if smp.t >= q.mint && smp.t <= q.maxt {
				within = append(within, smp)
			}
		}
		if len(within) > 0 {
			selected = append(selected, storage.NewListSeries(s.labels, within))
		}
	}
	return &seriesSet{series: selected, index: -1}
}

func (q *querier) LabelValues(_ context.Context, name string, _ *storage.LabelHints, matchers ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	values := map[string]bool{}
	for _, s := range q.storage.series {
		if v := s.labels.Get(name); v != "" && matchesAll(s.labels, matchers) {
			values[v] = true
		}
	}
	return sortedKeys(values), nil, nil
}

func (q *querier) LabelNames(_ context.Context, _ *storage.LabelHints, matchers ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	names := map[string]bool{}
	for _, s := range q.storage.series {
		if matchesAll(s.labels, matchers) {
			s.labels.Range(func(l labels.Label) { names[l.Name] = true })
		}
	}
	return sortedKeys(names), nil, nil
}

func (*querier) Close() error { return nil }

func matchesAll(lset labels.Labels, matchers []*labels.Matcher) bool {
	for _, matcher := range matchers {
		if !matcher.Matches(lset.Get(matcher.Name)) {
			return false
		}
	}
	return true
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for key := range set {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

type seriesSet struct {
	series []storage.Series
	index  int
}

func (s *seriesSet) Next() bool                      { s.index++; return s.index < len(s.series) }
func (s *seriesSet) At() storage.Series              { return s.series[s.index] }
func (*seriesSet) Err() error                        { return nil }
func (*seriesSet) Warnings() annotations.Annotations { return nil }

// sample is a float sample; the text exposition format carries nothing else.
type sample struct {
	t int64
	f float64
}

func (s sample) T() int64                    { return s.t }
func (sample) ST() int64                     { return 0 }
func (s sample) F() float64                  { return s.f }
func (sample) H() *histogram.Histogram       { return nil }
func (sample) FH() *histogram.FloatHistogram { return nil }
func (sample) Type() chunkenc.ValueType      { return chunkenc.ValFloat }
func (s sample) Copy() chunks.Sample         { return s }
