/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --web-config FILE: TLS and basic authentication for /metrics, in the
 * Prometheus exporter toolkit's format (a YAML subset: the keys below and
 * nothing else):
 *
 *   tls_server_config:
 *     cert_file: server.crt      # PEM; relative paths: from FILE's directory
 *     key_file: server.key
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt hashes ($2a$, $2b$, $2y$): htpasswd -nbB
 *
 * exporters/prom_http.c serves TLS by libmicrohttpd's GnuTLS support and
 * checks passwords with libcrypt's crypt_rn().
 */
#ifndef RT_WEB_CONFIG_H
#define RT_WEB_CONFIG_H

#include <stddef.h>

struct rt_web_user {
	char name[64];
	char hash[64];		/* a bcrypt hash: 60 characters */
};

struct rt_web_config {
	char *cert_pem, *key_pem;	/* the files' contents; NULL: no TLS */
	struct rt_web_user *users;	/* none: no authentication */
	size_t nusers;
};

/* Read FILE into c; 0, or -1 after one sentence on stderr. */
int rt_web_config_load(const char *path, struct rt_web_config *c);
void rt_web_config_free(struct rt_web_config *c);
/* 1 when user and password match a user of c (bcrypt), 0 otherwise. */
int rt_web_config_check(const struct rt_web_config *c, const char *user, const char *password);

#endif
