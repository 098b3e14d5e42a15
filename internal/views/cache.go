package views

import "sync"

// A cache keeps the few most recently used values: the traces and graphs being looked at. A
// stored trace never changes, so nothing is ever stale.
type cache[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	order []K // least recently used first
	vals  map[K]V
}

func newCache[K comparable, V any](max int) *cache[K, V] {
	return &cache[K, V]{max: max, vals: make(map[K]V, max)}
}

func (c *cache[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.vals[k]
	if ok {
		c.touch(k)
	}
	return v, ok
}

func (c *cache[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.vals[k]; !ok && len(c.order) >= c.max {
		delete(c.vals, c.order[0])
		c.order = c.order[1:]
	}
	c.vals[k] = v
	c.touch(k)
}

func (c *cache[K, V]) touch(k K) {
	for i, o := range c.order {
		if o == k {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, k)
}
