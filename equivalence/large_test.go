package equivalence_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// inList is "SELECT dog_id FROM dogs WHERE age IN (0, 1, ..., n-1[, extra])".
func inList(n int, extra ...int) string {
	var b strings.Builder
	b.WriteString("SELECT dog_id FROM dogs WHERE age IN (")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i))
	}
	for _, x := range extra {
		b.WriteString(", " + strconv.Itoa(x))
	}
	b.WriteString(")")
	return b.String()
}

// orChain is "SELECT dog_id FROM dogs WHERE age = 0 OR age = 1 ...".
func orChain(n int, extra ...int) string {
	var b strings.Builder
	b.WriteString("SELECT dog_id FROM dogs WHERE ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("age = " + strconv.Itoa(i))
	}
	for _, x := range extra {
		b.WriteString(" OR age = " + strconv.Itoa(x))
	}
	return b.String()
}

// unionChain is n UNION branches over dogs.
func unionChain(n int) string {
	var parts []string
	for i := 0; i < n; i++ {
		parts = append(parts, "SELECT name FROM dogs WHERE age = "+strconv.Itoa(i))
	}
	return strings.Join(parts, " UNION ")
}

func benchPair(b *testing.B, ref, cand string) {
	s := exampleSchema(b, catalog.Postgres)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := equivalence.Judge(context.Background(), s, ref, cand, equivalence.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJudgeLargeIN(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		b.Run("items="+strconv.Itoa(n), func(b *testing.B) { benchPair(b, inList(n), inList(n, n)) })
	}
}

func BenchmarkJudgeLargeOR(b *testing.B) {
	for _, n := range []int{1000, 10_000} {
		b.Run("terms="+strconv.Itoa(n), func(b *testing.B) { benchPair(b, orChain(n), orChain(n, n)) })
	}
}

func BenchmarkJudgeUnionBranches(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run("branches="+strconv.Itoa(n), func(b *testing.B) {
			benchPair(b, unionChain(n), unionChain(n)+" UNION SELECT name FROM dogs WHERE age = -1")
		})
	}
}
