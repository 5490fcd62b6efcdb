package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// printedUser is a user as Redis 7.0.15's ACL GETUSER printed one that kuis
// acl apply made in namespace kuis, with the password "pw": its commands,
// compacted into categories, and its keys.
func printedUser(commands, keys string, selectors ...string) serverUser {
	u := serverUser{
		flags:     []string{"on", "sanitize-payload"},
		passwords: []string{"30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"},
		root:      append(strings.Fields(keys), strings.Fields(commands)...),
	}
	for _, s := range selectors {
		u.selectors = append(u.selectors, strings.Fields(s))
	}
	return u
}

// Users as Redis 7.0.15 printed them (ACL GETUSER's commands and keys).
var (
	appKeys  = "~kuis:papan:* ~kuis:jawaban:* ~kuis:catatan:* ~kuis:urutan:* %R~kuis:meta:* %R~kuis:kursus:* %R~kuis:kursus-kuis:* %R~kuis:kursus-rincian:*:* %R~kuis:kelas:* %R~kuis:kelas-nama:* %R~kuis:kelas-mirip:*"
	appUser  = printedUser("-@all +@transaction +zcard +zcount +hlen +eval +zrange +eval_ro +evalsha_ro +xrevrange +zscan +wait +client|setname +zmscore +xadd +evalsha +sismember +xread +zrevrank +zscore +hmget +hget +smismember +cluster|slots +cluster|info +cluster|shards +smembers +sadd +sscan +hgetall +ping +xrange +time +xlen +hscan +hello +exists +scard +zadd -discard", appKeys, "-@all +eval +evalsha ~kuis:*")
	appCache = printedUser("-@all +@transaction +zcard +zcount +hlen +eval +zrange +eval_ro +evalsha_ro +xrevrange +zscan +wait +client|tracking +client|setname +client|caching +zmscore +xadd +evalsha +sismember +xread +zrevrank +zscore +hmget +hget +smismember +cluster|slots +cluster|info +cluster|shards +smembers +pttl +sadd +sscan +hgetall +ping +xrange +time +xlen +hscan +hello +exists +scard +zadd -discard", appKeys, "-@all +eval +evalsha ~kuis:*")
	appRepl  = printedUser("-@all +@transaction +zcard +zcount +hlen +eval +zrange +eval_ro +evalsha_ro +xrevrange +xinfo|stream +zscan +wait +client|setname +zmscore +xadd +evalsha +sismember +xread +zrevrank +zscore +hmget +hget +smismember +cluster|slots +cluster|info +cluster|shards +smembers +sadd +sscan +hgetall +ping +xrange +time +xsetid +xlen +hscan +hello +exists +scard +zadd +role -discard", appKeys, "-@all +eval +evalsha ~kuis:*")
	operator = printedUser("-@all +@transaction +@hash +scan +smembers +zmscore -hstrlen +xrevrange +eval +scard +unlink +zrange +zcount +smismember +zadd +zscore -hrandfield -hmset +pttl +exists +xdel +sismember +evalsha +hello -hvals +eval_ro -hsetnx +time +srem +sscan +rename +zscan -hincrby +xlen +xrange +client|setname +cluster|shards +cluster|nodes +cluster|slots +cluster|info -hincrbyfloat +wait +xread +ping -discard +zrem +type +evalsha_ro +zcard +zrevrank",
		"~kuis:papan:* ~kuis:urutan:* ~kuis:papan-baru:* ~kuis:urutan-baru:* ~kuis:kursus:* ~kuis:kursus-kuis:* ~kuis:kursus-rincian:*:* %R~kuis:meta:* %R~kuis:jawaban:* %R~kuis:catatan:* %R~kuis:kelas:* %R~kuis:kelas-nama:* %R~kuis:kelas-mirip:*",
		"-@all +eval +evalsha ~kuis:*", "-@all +unlink %W~kuis:*",
		"-@all +hdel +xdel +srem ~kuis:jawaban:* ~kuis:catatan:* ~kuis:kelas:* ~kuis:kelas-nama:* ~kuis:kelas-mirip:*")
)

// redis7Categories are the categories those users print, as Redis 7.0.15's
// ACL CAT lists them.
func redis7Categories(name string) ([]string, error) {
	switch name {
	case "transaction":
		return []string{"multi", "watch", "exec", "unwatch", "discard"}, nil
	case "hash":
		return strings.Fields("hstrlen hincrbyfloat hlen hrandfield hdel hexists hmget hvals hkeys hsetnx hincrby hscan hset hget hgetall hmset"), nil
	}
	return nil, fmt.Errorf("no category %q", name)
}

// with is u with changes: its commands rules appended, or its flags and
// passwords replaced.
func with(u serverUser, change func(*serverUser)) serverUser {
	u.root = slices.Clone(u.root)
	change(&u)
	return u
}

// TestACLCheckWords: acl check compares a user as the server prints it,
// in categories, with the role's rules for the flags, and says what
// differs: nothing for the same rules; which option a user made for other
// options lacks or has beyond (what New would refuse); another role by its
// name; any other rules by what they lack and allow beyond; a user off,
// without a password, or with another one.
func TestACLCheckWords(t *testing.T) {
	app := aclWant{role: kuis.RoleApp, namespace: "kuis", password: "pw"}
	appReplicas, appCache2 := app, app
	appReplicas.flags.replicas = true
	appCache2.flags.cache = true
	noPassword := app
	noPassword.password = ""
	op := aclWant{role: kuis.RoleOperator, namespace: "kuis"}
	for _, tt := range []struct {
		name string
		want aclWant
		user serverUser
		says string
	}{
		{"the app", app, appUser, ""},
		{"the app, with the cache", appCache2, appCache, ""},
		{"the app, for WithReplicas", appReplicas, appRepl, ""},
		{"the operator, in categories with exceptions", op, operator, ""},
		{"the app without WithReplicas' rules", appReplicas, appUser,
			"lacks what WithReplicas needs: +role +xinfo|stream +xsetid (kuis acl apply app -replicas gives it)"},
		{"the app with WithReplicas' rules", app, appRepl,
			"also has what WithReplicas needs: +role +xinfo|stream +xsetid (-replicas was not given)"},
		{"the app with the cache's rules", app, appCache,
			"also has what WithClientCache needs: +client|caching +client|tracking +pttl (-client-cache was not given)"},
		{"the app without the cache's rules, for WithReplicas", aclWant{role: kuis.RoleApp, namespace: "kuis", flags: aclFlags{cache: true}}, appRepl,
			"also has what WithReplicas needs: +role +xinfo|stream +xsetid (-replicas was not given); " +
				"lacks what WithClientCache needs: +client|caching +client|tracking +pttl (kuis acl apply app -client-cache gives it)"},
		{"the operator's rules for the app", app, operator, "has the rules of role operator, not app (kuis acl apply app makes them)"},
		{"the app's rules for the operator", op, appCache, "has the rules of role app -client-cache, not operator (kuis acl apply operator makes them)"},
		{"the app's rules in another namespace", aclWant{role: kuis.RoleApp, namespace: "sekolah"}, appUser,
			"differs from the rules of role app: lacks %R~sekolah:kelas-mirip:* %R~sekolah:kelas-nama:* %R~sekolah:kelas:* " +
				"%R~sekolah:kursus-kuis:* %R~sekolah:kursus-rincian:*:* %R~sekolah:kursus:* %R~sekolah:meta:* " +
				"~sekolah:catatan:* ~sekolah:jawaban:* ~sekolah:papan:* ~sekolah:urutan:* (~sekolah:* +evalsha +eval); " +
				"also allows %R~kuis:kelas-mirip:* %R~kuis:kelas-nama:* %R~kuis:kelas:* " +
				"%R~kuis:kursus-kuis:* %R~kuis:kursus-rincian:*:* %R~kuis:kursus:* %R~kuis:meta:* " +
				"~kuis:catatan:* ~kuis:jawaban:* ~kuis:papan:* ~kuis:urutan:* (-@all +eval +evalsha ~kuis:*)"},
		{"the app without ZADD and with DEL and all channels", app, with(appUser, func(u *serverUser) { u.root = append(u.root, "-zadd", "+del", "&*") }),
			"differs from the rules of role app: lacks +zadd; also allows +del &*"},
		{"the app with every command", appReplicas, with(appUser, func(u *serverUser) { u.root = append(u.root, "+@all") }),
			"differs from the rules of role app -replicas: also allows +@all"},
		{"the app with every command but ROLE", appReplicas, with(appUser, func(u *serverUser) { u.root = append(u.root, "+@all", "-role") }),
			"differs from the rules of role app -replicas: lacks +role; also allows +@all"},
		{"the app off", app, with(appUser, func(u *serverUser) { u.flags = []string{"off", "sanitize-payload"} }), "is off: it cannot log in"},
		{"the app with another password", app, with(appUser, func(u *serverUser) { u.passwords = []string{"00"} }), "has another password than the one given"},
		{"the app with a second password", app, with(appUser, func(u *serverUser) { u.passwords = append(u.passwords, "00") }), "has another password than the one given"},
		{"the app's password not checked", noPassword, with(appUser, func(u *serverUser) { u.passwords = []string{"00"} }), ""},
		{"the app without a password", noPassword, with(appUser, func(u *serverUser) { u.flags, u.passwords = []string{"on", "nopass"}, nil }), "takes any password (nopass)"},
		{"the app off, for WithReplicas", appReplicas, with(appUser, func(u *serverUser) { u.flags = []string{"off"} }),
			"is off: it cannot log in; lacks what WithReplicas needs: +role +xinfo|stream +xsetid (kuis acl apply app -replicas gives it)"},
	} {
		got, err := tt.want.diff(tt.user, redis7Categories)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.says, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if _, err := app.diff(with(appUser, func(u *serverUser) { u.root = append(u.root, "+@geo") }), redis7Categories); err == nil {
		t.Error("a category ACL CAT does not list: no error")
	}
	if _, err := app.diff(with(appUser, func(u *serverUser) { u.root = append(u.root, "%X~k") }), redis7Categories); err == nil {
		t.Error("a key rule of no known permission: no error")
	}
}
