package algorithms

// stateOf is key's state, nil when it has none.
func (k *keyed[S]) stateOf(key string) *S {
	s, _ := k.state(key)
	return s
}

// stateKeys are the keys holding state, in slot order.
func (k *keyed[S]) stateKeys() []string {
	var keys []string
	k.each(func(_ *heldState[S], slot int32) { keys = append(keys, k.dir.names[slot]) })
	return keys
}
