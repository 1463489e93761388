// Package slab holds values addressed by small integer indexes, reusing the
// indexes of freed values: the engine's requests in flight and backend jobs, and
// the non-atomic strategies' reads awaiting their write, all allocate only as many
// as are live at once, however long the run.
package slab

// Slab holds values of type T. The zero value is empty and ready to use.
type Slab[T any] struct {
	items []T
	free  []int32
}

// Put stores v and returns its index.
func (s *Slab[T]) Put(v T) int32 {
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		s.items[id] = v
		return id
	}
	s.items = append(s.items, v)
	return int32(len(s.items) - 1)
}

// Alloc reserves an index and returns it with its value, zeroed, to fill in
// place: for a value of several fields, cheaper than Put's copy of one built
// elsewhere (which the processor reads back, wide, from the narrow stores that
// built it).
func (s *Slab[T]) Alloc() (int32, *T) {
	var id int32
	if n := len(s.free); n > 0 {
		id = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		var zero T
		s.items = append(s.items, zero)
		id = int32(len(s.items) - 1)
	}
	v := &s.items[id]
	*v = *new(T)
	return id, v
}

// At is the value at id, to read or change in place; valid until the next Put.
func (s *Slab[T]) At(id int32) *T { return &s.items[id] }

// Release frees id for reuse; the value stays until a Put overwrites it.
func (s *Slab[T]) Release(id int32) { s.free = append(s.free, id) }
