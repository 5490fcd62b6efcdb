package cluster

import "testing"

// TestSlotIsRedisClusters: Slot agrees with the slots Redis Cluster gives
// (CLUSTER KEYSLOT), hash tags included.
func TestSlotIsRedisClusters(t *testing.T) {
	for key, want := range map[string]uint16{
		"123456789":            0x31C3, // CRC16/XMODEM's check value
		"foo":                  12182,
		"somekey":              11058,
		"kuis:papan:{ipa-01}":  618,
		"{ipa-01}":             618,
		"{user1000}.following": 3443,
		"foo{}{bar}":           8363,
		"foo{{bar}}zap":        4015,
		"":                     0,
	} {
		if got := Slot(key); got != want {
			t.Errorf("Slot(%q) = %d, want %d", key, got, want)
		}
	}
}

// TestKeyInSlot: the key found for a slot is in that slot, for slots
// across the range.
func TestKeyInSlot(t *testing.T) {
	for _, slot := range []uint16{0, 1, 477, 6340, 12182, Slots - 1} {
		if k := KeyInSlot(slot); Slot(k) != slot {
			t.Errorf("KeyInSlot(%d) = %q, in slot %d", slot, k, Slot(k))
		}
	}
}
