package sim

// slab holds values addressed by index, reusing the indexes of freed values so a
// long run allocates only as many as are live at once (requests in flight, backend
// jobs, non-atomic reads awaiting their write).
type slab[T any] struct {
	items []T
	free  []int32
}

// put stores v and returns its index.
func (s *slab[T]) put(v T) int32 {
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		s.items[id] = v
		return id
	}
	s.items = append(s.items, v)
	return int32(len(s.items) - 1)
}

// at is the value at id, to read or change in place.
func (s *slab[T]) at(id int32) *T { return &s.items[id] }

// release frees id for reuse.
func (s *slab[T]) release(id int32) { s.free = append(s.free, id) }
