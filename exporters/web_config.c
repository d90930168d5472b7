// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --web-config FILE (exporters/web_config.h): a parser for the subset of YAML
 * the exporter toolkit's web configuration uses (two mappings of scalars,
 * comments, quotes), which refuses any key it does not implement rather than
 * serve without what the file asked for; and the bcrypt check, bounded: a
 * verified password is remembered (as a SHA-256 crypt under this process's
 * own salt, as the exporter toolkit caches one), and a client has
 * RT_WEB_BURST wrong guesses, then one a second.
 *
 * Every file is read whole before anything is served: opened without
 * blocking, refused unless it is a regular file (a directory once read as an
 * empty configuration, and a FIFO hung the start).
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "log.h"
#include "web_config.h"

#define MAX_USERS	1024
#define MAX_PEM		(1 << 20)
#define MAX_CONFIG	(1 << 20)
#define LINE_MAX_	1024		/* a line's bytes with its end */
#define MIN_COST	4		/* bcrypt costs taken (the exporter toolkit: 4-31) */
#define MAX_COST	14
#define CLIENTS		64		/* clients whose bcrypt budget is kept */

struct rt_web_client {
	unsigned char id[16];
	size_t idlen;
	double tokens, last;
};

struct rt_web_auth {
	char salt[64];			/* "$5$rounds=1000$...": this process's */
	struct rt_web_client clients[CLIENTS];
};

enum section { SEC_NONE, SEC_TLS, SEC_USERS };

struct wparse {
	const char *path;
	int line;
	enum section sec;
	int tls;		/* tls_server_config given */
	char cert[PATH_MAX], key[PATH_MAX];
	struct rt_web_config *c;
};

static int bad(const struct wparse *p, const char *what)
{
	pr_warn("--web-config %s line %d: %s.\n", p->path, p->line, what);
	return -1;
}

/* A scalar: trailing blanks and a comment cut, quotes taken off. */
static int scalar(const struct wparse *p, char *v, char *out, size_t len)
{
	size_t n;

	while (*v == ' ')
		v++;
	if (*v == '\'' || *v == '"') {
		char *end = strchr(v + 1, *v);

		if (!end)
			return bad(p, "a quoted value does not end on its line");
		n = (size_t)(end - v - 1);
		v++;
	} else {
		char *hash = strstr(v, " #");

		if (hash)
			*hash = 0;
		n = strlen(v);
		while (n && v[n - 1] == ' ')
			n--;
	}
	if (n >= len)
		return bad(p, "a value is too long");
	memcpy(out, v, n);
	out[n] = 0;
	return 0;
}

static const char b64_crypt[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* 0 for a bcrypt hash of a cost this exporter takes, else why not. */
static const char *bcrypt_bad(const char *h)
{
	int cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !h[2] || !strchr("aby", h[2]) || h[3] != '$' ||
	    h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || h[6] != '$' ||
	    strspn(h + 7, b64_crypt) != 53)
		return "a user's password must be a bcrypt hash ($2y$..., htpasswd -nbB USER PASSWORD makes one)";
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < MIN_COST || cost > MAX_COST)
		return "a bcrypt hash's cost must be 04 to 14 (htpasswd -nbB -C 10 makes one of 10): "
		       "each check takes the exporter's one thread, and one of cost 15 takes seconds";
	return NULL;
}

static int top_key(struct wparse *p, const char *key, const char *rest)
{
	while (*rest == ' ')
		rest++;
	if (!strcmp(key, "tls_server_config")) {
		p->sec = SEC_TLS;
		p->tls = 1;
	} else if (!strcmp(key, "basic_auth_users")) {
		p->sec = SEC_USERS;
	} else {
		char msg[160];

		snprintf(msg, sizeof(msg), "'%.40s' is not supported: rocetop reads tls_server_config (cert_file, key_file) and basic_auth_users only", key);
		return bad(p, msg);
	}
	if (*rest && *rest != '#' && strcmp(rest, "{}"))
		return bad(p, "a section holds its keys on the lines below it, indented");
	return 0;
}

static int sub_key(struct wparse *p, const char *key, char *rest)
{
	struct rt_web_config *c = p->c;
	char val[PATH_MAX];

	if (scalar(p, rest, val, sizeof(val)))
		return -1;
	if (p->sec == SEC_TLS) {
		if (strcmp(key, "cert_file") && strcmp(key, "key_file")) {
			char msg[160];

			snprintf(msg, sizeof(msg), "'%.40s' is not supported in tls_server_config: give cert_file and key_file only", key);
			return bad(p, msg);
		}
		snprintf(!strcmp(key, "cert_file") ? p->cert : p->key, PATH_MAX, "%s", val);
		return 0;
	}
	if (p->sec != SEC_USERS)
		return bad(p, "an indented key outside tls_server_config and basic_auth_users");
	if (bcrypt_bad(val))
		return bad(p, bcrypt_bad(val));
	if (strlen(key) >= sizeof(c->users[0].name) || c->nusers == MAX_USERS)
		return bad(p, "too long a user name, or too many users");
	if (!(c->nusers & (c->nusers - 1)) || !c->users) {
		void *n = realloc(c->users, (c->nusers ? c->nusers * 2 : 4) * sizeof(*c->users));

		if (!n)
			return bad(p, "out of memory");
		c->users = n;
	}
	snprintf(c->users[c->nusers].name, sizeof(c->users[0].name), "%s", key);
	snprintf(c->users[c->nusers].hash, sizeof(c->users[0].hash), "%s", val);
	c->nusers++;
	return 0;
}

static int parse_line(struct wparse *p, char *s)
{
	char key[128], *colon;
	size_t indent = strspn(s, " ");

	s[strcspn(s, "\r\n")] = 0;
	if (s[indent] == '\t' || strchr(s, '\t'))
		return bad(p, "a tab: YAML indents with spaces");
	if (!s[indent] || s[indent] == '#' || (!indent && !strcmp(s, "---")))
		return 0;
	colon = strstr(s + indent, ": ");
	if (!colon && s[strlen(s) - 1] == ':')
		colon = s + strlen(s) - 1;
	if (!colon)
		return bad(p, "not a 'key: value' line");
	*colon = 0;
	if (scalar(p, s + indent, key, sizeof(key)))
		return -1;
	if (!indent)
		return top_key(p, key, colon + 1);
	return sub_key(p, key, colon + 1);
}

/* The whole of a regular file of at most max bytes, NUL-terminated, its
 * length in *len; NULL with errno set (EINVAL: not a regular file, EFBIG:
 * larger than max). O_NONBLOCK: opening a FIFO does not wait for a writer. */
static char *read_whole(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	ssize_t r;
	int err = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;
	else if ((unsigned long long)st.st_size > max)
		err = EFBIG;
	else if (!(buf = malloc(max + 1)))
		err = ENOMEM;
	while (!err && n <= max && (r = read(fd, buf + n, max + 1 - n)) != 0) {
		if (r < 0 && errno != EINTR)
			err = errno;
		else if (r > 0)
			n += (size_t)r;
	}
	if (!err && n > max)
		err = EFBIG;
	close(fd);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Why read_whole failed, in words. */
static const char *read_why(int err)
{
	return err == EINVAL ? "it is not a regular file" : err == EFBIG ? "it is larger than 1 MB" : strerror(err);
}

/* A PEM file named by the config, relative to its directory. */
static char *read_pem(const struct wparse *p, const char *name, const char *what)
{
	char path[PATH_MAX * 2], dir[PATH_MAX], *buf;
	size_t n;

	snprintf(dir, sizeof(dir), "%s", p->path);
	snprintf(path, sizeof(path), "%s%s%s", name[0] == '/' ? "" : dirname(dir), name[0] == '/' ? "" : "/", name);
	buf = read_whole(path, MAX_PEM, &n);
	if (!buf) {
		pr_warn("--web-config %s: cannot read the %s %s: %s.\n", p->path, what, path, read_why(errno));
		return NULL;
	}
	if (!n || strlen(buf) != n || !strstr(buf, "-----BEGIN ")) {
		pr_warn("--web-config %s: the %s %s is not a PEM file.\n", p->path, what, path);
		explicit_bzero(buf, n);
		free(buf);
		return NULL;
	}
	return buf;
}

/* Each line of the file's text, whole: one longer than LINE_MAX_ - 1 bytes
 * or holding a NUL is refused, naming its own number. */
static int parse_text(struct wparse *p, const char *text, size_t len)
{
	char line[LINE_MAX_];
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);

		p->line++;
		if (n >= sizeof(line))
			return bad(p, "the line is longer than 1,023 bytes");
		if (memchr(s, 0, n))
			return bad(p, "the line holds a NUL byte");
		memcpy(line, s, n);
		line[n] = 0;
		if (parse_line(p, line))
			return -1;
		s += n + 1;
	}
	return 0;
}

int rt_web_config_parse(const char *path, const char *text, size_t len, struct rt_web_config *c)
{
	struct wparse p = { .path = path, .c = c };

	memset(c, 0, sizeof(*c));
	if (parse_text(&p, text, len)) {
		rt_web_config_free(c);
		return -1;
	}
	return 0;
}

static int auth_new(struct rt_web_config *c)
{
	c->auth = calloc(1, sizeof(*c->auth));
	if (!c->auth || !crypt_gensalt_rn("$5$", 1000, NULL, 0, c->auth->salt, sizeof(c->auth->salt))) {
		pr_warn("--web-config: cannot make a salt for the verified passwords: %s.\n", strerror(errno));
		return -1;
	}
	return 0;
}

int rt_web_config_load(const char *path, struct rt_web_config *c)
{
	struct wparse p = { .path = path, .c = c };
	size_t len;
	char *text;
	int err;

	memset(c, 0, sizeof(*c));
	text = read_whole(path, MAX_CONFIG, &len);
	if (!text) {
		pr_warn("--web-config %s: cannot read it: %s.\n", path, read_why(errno));
		return -1;
	}
	err = parse_text(&p, text, len);
	explicit_bzero(text, len);
	free(text);
	if (!err && p.tls && (!p.cert[0] || !p.key[0])) {
		pr_warn("--web-config %s: tls_server_config needs both cert_file and key_file.\n", path);
		err = -1;
	}
	if (!err && p.cert[0] && (!(c->cert_pem = read_pem(&p, p.cert, "certificate")) ||
				  !(c->key_pem = read_pem(&p, p.key, "key"))))
		err = -1;
	if (!err && c->nusers && auth_new(c))
		err = -1;
	if (err) {
		rt_web_config_free(c);
		return -1;
	}
	return 0;
}

void rt_web_config_free(struct rt_web_config *c)
{
	if (c->key_pem)
		explicit_bzero(c->key_pem, strlen(c->key_pem));
	if (c->users)
		explicit_bzero(c->users, c->nusers * sizeof(*c->users));
	free(c->cert_pem);
	free(c->key_pem);
	free(c->users);
	free(c->auth);
	memset(c, 0, sizeof(*c));
}

/* Equal strings, in a time that does not depend on where they differ. */
static int same_secret(const char *a, const char *b)
{
	size_t i, n = strlen(a);
	unsigned char diff = 0;

	if (n != strlen(b))
		return 0;
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return !diff;
}

/* A client's bcrypt budget: RT_WEB_BURST, then one a second. 1: one taken. */
static int budget_take(struct rt_web_auth *a, const void *id, size_t idlen, double now)
{
	struct rt_web_client *k = NULL, *old = &a->clients[0];
	size_t i;

	if (idlen > sizeof(k->id))
		idlen = sizeof(k->id);
	for (i = 0; i < CLIENTS && !k; i++) {
		if (a->clients[i].idlen == idlen && !memcmp(a->clients[i].id, id, idlen))
			k = &a->clients[i];
		else if (a->clients[i].last < old->last)
			old = &a->clients[i];
	}
	if (!k) {		/* the client seen longest ago makes room */
		k = old;
		memcpy(k->id, id, idlen);
		k->idlen = idlen;
		k->tokens = RT_WEB_BURST;
		k->last = now;
	}
	if (now > k->last) {
		k->tokens += now - k->last;
		if (k->tokens > RT_WEB_BURST)
			k->tokens = RT_WEB_BURST;
	}
	k->last = now;
	if (k->tokens < 1)
		return 0;
	k->tokens -= 1;
	return 1;
}

static void budget_refund(struct rt_web_auth *a, const void *id, size_t idlen)
{
	size_t i;

	if (idlen > sizeof(a->clients[0].id))
		idlen = sizeof(a->clients[0].id);
	for (i = 0; i < CLIENTS; i++)
		if (a->clients[i].idlen == idlen && !memcmp(a->clients[i].id, id, idlen))
			a->clients[i].tokens += 1;
}

/* The password under this process's salt (SHA-256 crypt, under a millisecond). */
static int remembered(const struct rt_web_auth *a, const char *password, char *out, size_t len)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h = cd ? crypt_rn(password, a->salt, cd, sizeof(*cd)) : NULL;
	int ok = h && h[0] == '$' && strlen(h) < len;

	if (ok)
		strcpy(out, h);
	if (cd)
		explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok ? 0 : -1;
}

static int bcrypt_check(const struct rt_web_config *c, const struct rt_web_user *u, const char *password)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	int ok;

	if (!cd)
		return 0;
	/* an unknown user costs a bcrypt too: the time tells no names */
	out = crypt_rn(password, u ? u->hash : c->users[0].hash, cd, sizeof(*cd));
	ok = out && u && same_secret(out, u->hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

int rt_web_config_check(struct rt_web_config *c, const char *user, const char *password, const void *client,
			size_t clen, double now)
{
	struct rt_web_user *u = NULL;
	char seen[sizeof(u->seen)];
	size_t i;
	int ok;

	if (!c->nusers || !c->auth || !user || !password)
		return RT_WEB_DENIED;
	for (i = 0; i < c->nusers && !u; i++)
		if (!strcmp(c->users[i].name, user))
			u = &c->users[i];
	if (u && u->seen[0] && !remembered(c->auth, password, seen, sizeof(seen)) && same_secret(seen, u->seen))
		return RT_WEB_OK;
	if (!budget_take(c->auth, client, clen, now))
		return RT_WEB_BUSY;
	ok = bcrypt_check(c, u, password);
	if (ok) {		/* only wrong guesses spend the budget */
		budget_refund(c->auth, client, clen);
		if (remembered(c->auth, password, u->seen, sizeof(u->seen)))
			u->seen[0] = 0;
	}
	return ok ? RT_WEB_OK : RT_WEB_DENIED;
}

static int b64_val(char ch)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = ch ? strchr(al, ch) : NULL;

	return p ? (int)(p - al) : -1;
}

int rt_web_basic_decode(const char *header, char *user, size_t ulen, char *password, size_t plen)
{
	char out[1024], *colon;
	size_t n = 0, i, len;
	unsigned int acc = 0;
	int bits = 0, v;

	if (!header || strncasecmp(header, "Basic ", 6))
		return -1;
	header += 6;
	header += strspn(header, " ");
	len = strlen(header);
	while (len && header[len - 1] == ' ')
		len--;
	if (!len || len % 4)
		return -1;
	for (i = 0; i < len; i++) {
		if (header[i] == '=') {		/* padding: only at the end, at most two */
			if (i < len - 2 || strspn(header + i, "=") != len - i)
				return -1;
			break;
		}
		if ((v = b64_val(header[i])) < 0)
			return -1;
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == sizeof(out))
				return -1;
			out[n++] = (char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* a NUL would cut the password short: "secret\0junk" is not "secret" */
	if (memchr(out, 0, n) || !(colon = memchr(out, ':', n)))
		return -1;
	if ((size_t)(colon - out) >= ulen || (size_t)(out + n - colon - 1) >= plen)
		return -1;
	memcpy(user, out, (size_t)(colon - out));
	user[colon - out] = 0;
	memcpy(password, colon + 1, (size_t)(out + n - colon - 1));
	password[out + n - colon - 1] = 0;
	explicit_bzero(out, sizeof(out));
	return 0;
}
