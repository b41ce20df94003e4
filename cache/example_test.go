package cache_test

import (
	"fmt"

	"github.com/pgequiv/pgequiv/cache"
)

func Example() {
	c, err := cache.New(cache.Options[cache.PlanKey, []byte]{
		MaxEntries: 100,
		MaxBytes:   8,
		SizeFunc:   func(_ cache.PlanKey, v []byte) int64 { return int64(len(v)) },
		OnEvict:    func(k cache.PlanKey, _ []byte) { fmt.Println("evicted", k.Dialect) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	schema := cache.FingerprintOf([]byte("create table t(a int)"))
	key := func(dialect, plan string) cache.PlanKey {
		return cache.PlanKey{Schema: schema, Dialect: dialect, Plan: cache.FingerprintOf([]byte(plan))}
	}
	c.Add(key("pg15", "Scan t"), []byte("12345"))
	c.Add(key("pg16", "Scan t"), []byte("6789")) // 9 bytes > 8: evicts pg15
	_, ok := c.Get(key("pg16", "Scan t"))
	fmt.Println("hit:", ok)
	fmt.Printf("%+v\n", c.Stats())
	// Output:
	// evicted pg15
	// hit: true
	// {Hits:1 Misses:0 Evictions:1 Rejected:0 Entries:1 Bytes:4}
}
