package cluster

import "strconv"

// Slots is the number of a Redis Cluster's hash slots.
const Slots = 16384

// Slot is the hash slot of key: CRC16 (XMODEM) of the key, or of its hash
// tag (the text between its first '{' and the first '}' after it, when not
// empty), modulo Slots.
func Slot(key string) uint16 {
	if open := indexByte(key, '{'); open >= 0 {
		if n := indexByte(key[open+1:], '}'); n > 0 {
			key = key[open+1 : open+1+n]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % Slots
}

// KeyInSlot returns the smallest decimal number whose Slot is slot, as a
// key: a command about no key of its own (a PING) sent with it goes to the
// node serving slot. slot must be below Slots.
func KeyInSlot(slot uint16) string {
	for i := 0; ; i++ {
		if k := strconv.Itoa(i); Slot(k) == slot {
			return k
		}
	}
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
