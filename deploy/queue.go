package deploy

// queue is a double-ended queue on one slice: pushed at the back, taken from
// either end. Taking from the front moves a head index instead of the slice,
// and a push into a slice half spent moves what is left to the start, so a
// queue that keeps a window of the recent past reuses one array instead of
// growing a new one as its start moves on.
type queue[T any] struct {
	items []T
	head  int
}

func (q *queue[T]) front() T    { return q.items[q.head] }
func (q *queue[T]) back() T     { return q.items[len(q.items)-1] }
func (q *queue[T]) popFront()   { q.head++ }
func (q *queue[T]) popBack()    { q.items = q.items[:len(q.items)-1] }
func (q *queue[T]) empty() bool { return q.head == len(q.items) }
func (q *queue[T]) push(x T) {
	if q.head > 0 && len(q.items) == cap(q.items) && 2*q.head >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, x)
}
