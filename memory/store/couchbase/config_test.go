package couchbase

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
)

func TestConfigValidate(t *testing.T) {
	ok := testConfig()
	tests := []struct {
		name string
		edit func(*Config)
		want string // substring of the error; "" means valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"capella", func(c *Config) { c.URL = "couchbases://cb.abc.cloud.couchbase.com" }, ""},
		{"http url", func(c *Config) { c.URL = "http://localhost:8091" }, "couchbase-url"},
		{"ca cert without tls", func(c *Config) { c.CACert = "ca.pem" }, "not couchbases://"},
		{"no user", func(c *Config) { c.Username = "" }, "couchbase-username"},
		{"scope with dot", func(c *Config) { c.Scope = "a.b" }, "couchbase-scope"},
		{"system collection", func(c *Config) { c.Collection = "_system" }, "couchbase-collection"},
		{"index with space", func(c *Config) { c.Index = "my index" }, "couchbase-index"},
		{"fusion", func(c *Config) { c.Fusion = "max" }, "couchbase-fusion"},
		{"durability", func(c *Config) { c.Durability = "all" }, "couchbase-durability"},
		{"replicas", func(c *Config) { c.IndexReplicas = 4 }, "couchbase-index-replicas"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	c := Config{}.withDefaults()
	if c.Bucket == "" || c.Scope == "" || c.Collection == "" || c.Index == "" || c.Fusion != FusionRRF ||
		c.ConnectTimeout <= 0 || c.KVTimeout <= 0 || c.SearchTimeout <= 0 || c.TransactionTimeout <= 0 || c.IndexPartitions != 1 {
		t.Errorf("defaults incomplete: %+v", c)
	}
	custom := Config{Bucket: "b", SearchTimeout: time.Second}.withDefaults()
	if custom.Bucket != "b" || custom.SearchTimeout != time.Second {
		t.Errorf("defaults overrode set fields: %+v", custom)
	}
}

func TestClusterOptions(t *testing.T) {
	c := testConfig()
	c.Durability = "none"
	opts, err := c.clusterOptions()
	if err != nil {
		t.Fatal(err)
	}
	if opts.TransactionsConfig.DurabilityLevel != gocb.DurabilityLevelNone {
		t.Errorf("durability %v, want none", opts.TransactionsConfig.DurabilityLevel)
	}
	if mc := opts.TransactionsConfig.MetadataCollection; mc == nil || mc.CollectionName != c.Collection {
		t.Errorf("transaction records go to %+v, want the memories' collection", mc)
	}
	if opts.TimeoutsConfig.SearchTimeout != c.SearchTimeout || opts.TransactionsConfig.Timeout != c.TransactionTimeout {
		t.Errorf("timeouts not applied: %+v", opts.TimeoutsConfig)
	}
	if opts.SecurityConfig.TLSRootCAs != nil {
		t.Error("a CA pool without couchbase-ca-cert")
	}

	dir := t.TempDir()
	c.URL = "couchbases://db.example"
	c.CACert = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(c.CACert, selfSigned(t), 0o600); err != nil {
		t.Fatal(err)
	}
	if opts, err = c.clusterOptions(); err != nil || opts.SecurityConfig.TLSRootCAs == nil {
		t.Errorf("CA cert not loaded: %v", err)
	}
	os.WriteFile(c.CACert, []byte("not pem"), 0o600)
	if _, err := c.clusterOptions(); err == nil || !strings.Contains(err.Error(), "no PEM") {
		t.Errorf("error %v, want one saying the file holds no PEM certificate", err)
	}
	c.CACert = filepath.Join(dir, "missing.pem")
	if _, err := c.clusterOptions(); err == nil || !strings.Contains(err.Error(), "couchbase-ca-cert") {
		t.Errorf("error %v, want one naming couchbase-ca-cert", err)
	}
}

func selfSigned(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
