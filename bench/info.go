package main

import "strings"

// parseInfo reads INFO's "name:value" lines.
func parseInfo(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(name, "#") {
			out[name] = value
		}
	}
	return out
}

// parseFields reads a commandstats value: "calls=3,usec=12,usec_per_call=4.00,...".
func parseFields(value string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Split(value, ",") {
		if name, v, ok := strings.Cut(f, "="); ok {
			out[name] = v
		}
	}
	return out
}
