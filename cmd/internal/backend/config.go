package backend

import (
	"strconv"
	"time"

	"github.com/alecthomas/kong"

	"agentmem/cmd/internal/config"
	"agentmem/memory/store/couchbase"
)

// Config is everything a user can set: the light part (config.Base: the
// data dir, the namespace, the clock, the time zone), the store and the
// embedder. The tags are the command line's flags; every flag also reads
// an AGENTMEM_* environment variable. The
// library packages take plain configuration types: only the command line
// knows about flags.
type Config struct {
	config.Base
	Embedder string `name:"embedder" group:"global" env:"AGENTMEM_EMBEDDER" enum:"builtin,openai,none" default:"builtin" help:"Embedding model: builtin (Universal Sentence Encoder Lite, offline), openai (any OpenAI-compatible endpoint) or none (lexical only)."`
	Store    string `name:"store" group:"global" env:"AGENTMEM_STORE" enum:"embedded,couchbase" default:"embedded" help:"Where memories live: embedded (files in --data-dir) or couchbase (a Couchbase cluster; run 'agentmem couchbase setup' first)."`
	Fusion   string `name:"fusion" group:"global" env:"AGENTMEM_FUSION" enum:"rrf,rsf,text,vector,rerank" default:"rrf" help:"Default fusion of text and vector rankings."`
	NoSync   bool   `name:"no-sync" group:"global" env:"AGENTMEM_NO_SYNC" help:"Skip fsync on each write: faster bulk ingest; a power cut may lose the last writes."`
	// TextCache is in MB: kong has no byte sizes, and MB is the unit that matters here
	TextCache int `name:"text-cache" group:"global" env:"AGENTMEM_TEXT_CACHE" default:"512" help:"Most the embedded store keeps in memory of its common words' postings, decoded, in MB: in a namespace of a million memories they halve the text side of a recall (0: none)."`

	OpenAI    OpenAIConfig   `embed:"" prefix:"openai-" envprefix:"AGENTMEM_OPENAI_" group:"openai"`
	Reranker  RerankerConfig `embed:"" prefix:"reranker-" envprefix:"AGENTMEM_RERANKER_" group:"reranker"`
	Couchbase CouchbaseFlags `embed:"" prefix:"couchbase-" envprefix:"AGENTMEM_COUCHBASE_" group:"couchbase"`
}

// OpenAIConfig selects an OpenAI-compatible embeddings endpoint.
type OpenAIConfig struct {
	BaseURL string `name:"base-url" env:"BASE_URL" default:"https://api.openai.com/v1" help:"Embeddings API root (Ollama: http://localhost:11434/v1)."`
	Model   string `name:"model" env:"MODEL" default:"text-embedding-3-small" help:"Embedding model."`
	APIKey  string `name:"api-key" env:"API_KEY" help:"API key (falls back to OPENAI_API_KEY; local servers need none)."`
	Dims    int    `name:"dims" env:"DIMS" help:"Requested vector length (models that support it)."`
}

// RerankerConfig selects a /rerank endpoint: a model that reads the query
// and each memory together and orders each recall's best candidates.
type RerankerConfig struct {
	URL        string        `name:"url" env:"URL" help:"A rerank endpoint, path included (llama.cpp --reranking: http://localhost:8080/v1/rerank; vLLM, Infinity, LocalAI, Cohere, Jina, Voyage; text-embeddings-inference with --reranker-api tei). Empty: no reranker."`
	Model      string        `name:"model" env:"MODEL" help:"Reranking model name sent to the endpoint (Cohere, Jina and vLLM need one)."`
	APIKey     string        `name:"api-key" env:"API_KEY" help:"API key, sent as a bearer token (local servers need none); set AGENTMEM_RERANKER_API_KEY rather than the flag, which other users see in ps."`
	API        string        `name:"api" env:"API" enum:"cohere,tei" default:"cohere" help:"Request shape: cohere ({model, query, documents}: Cohere, Jina, Voyage, Mixedbread, llama.cpp, vLLM, Infinity, LocalAI) or tei ({query, texts}: Hugging Face text-embeddings-inference)."`
	Timeout    time.Duration `name:"timeout" env:"TIMEOUT" default:"10s" help:"Time for one recall's reranking, one retry included (more than 0); past it the recall returns the fused order and says why."`
	Candidates int           `name:"candidates" env:"CANDIDATES" default:"0" help:"How many of the best fused candidates the reranker orders (1 to 100, never fewer than the recall's k), and so the most a recall returns; 0: four times k, at least 40."`
}

// CouchbaseFlags are couchbase.Config as flags. Their defaults are
// couchbase.Defaults, interpolated by kong (see Vars), so they are
// declared once, in the couchbase package.
type CouchbaseFlags struct {
	URL        string `name:"url" env:"URL" default:"${cb_url}" help:"Connection string: couchbase://host[,host] for a self-managed cluster, couchbases://host for TLS (Capella)."`
	CACert     string `name:"ca-cert" env:"CA_CERT" type:"path" help:"PEM file of the CA that signed the cluster's certificate, for couchbases:// to a self-managed cluster (Capella's CA is built in)."`
	Username   string `name:"username" env:"USERNAME" help:"Database user (on Capella: a database access credential)."`
	Password   string `name:"password" env:"PASSWORD" help:"Password of the database user."`
	Bucket     string `name:"bucket" env:"BUCKET" default:"${cb_bucket}" help:"Bucket that holds the memories; it must exist."`
	Scope      string `name:"scope" env:"SCOPE" default:"${cb_scope}" help:"Scope of the collection and the Search index (created by setup)."`
	Collection string `name:"collection" env:"COLLECTION" default:"${cb_collection}" help:"Collection of the memories (created by setup)."`
	Index      string `name:"index" env:"INDEX" default:"${cb_index}" help:"Name of the scoped Search index (created by setup)."`
	Fusion     string `name:"fusion" env:"FUSION" default:"${cb_fusion}" enum:"rrf,sum" help:"Hybrid fusion on the server: rrf (Couchbase Server 8.1+, Capella) or sum (the server's sum of scores, before 8.1)."`
	Durability string `name:"durability" env:"DURABILITY" default:"${cb_durability}" enum:"none,majority,majority-persist,persist" help:"Durability of writes: none (a single-node cluster whose bucket has replicas), majority, majority-persist (persisted on the active node), persist (persisted on a majority)."`

	ConnectTimeout     time.Duration `name:"connect-timeout" env:"CONNECT_TIMEOUT" default:"${cb_connect_timeout}" help:"Time to connect and wait for the bucket and the Search service."`
	KVTimeout          time.Duration `name:"kv-timeout" env:"KV_TIMEOUT" default:"${cb_kv_timeout}" help:"Time for one key-value operation."`
	SearchTimeout      time.Duration `name:"search-timeout" env:"SEARCH_TIMEOUT" default:"${cb_search_timeout}" help:"Time for one Search request."`
	TransactionTimeout time.Duration `name:"transaction-timeout" env:"TRANSACTION_TIMEOUT" default:"${cb_transaction_timeout}" help:"Time for one remember or forget transaction, retries included."`

	IndexPartitions int `name:"index-partitions" env:"INDEX_PARTITIONS" default:"${cb_index_partitions}" help:"Search index partitions (setup): about one per 1-5 million memories, at most the Search nodes' cores."`
	IndexReplicas   int `name:"index-replicas" env:"INDEX_REPLICAS" default:"0" help:"Search index replicas (setup): 1 or more for failover; needs that many more Search nodes."`
}

// Config is the couchbase package.s configuration the flags set.
func (f CouchbaseFlags) Config() couchbase.Config {
	return couchbase.Config{
		URL: f.URL, CACert: f.CACert, Username: f.Username, Password: f.Password,
		Bucket: f.Bucket, Scope: f.Scope, Collection: f.Collection, Index: f.Index,
		Fusion: f.Fusion, Durability: f.Durability,
		ConnectTimeout: f.ConnectTimeout, KVTimeout: f.KVTimeout, SearchTimeout: f.SearchTimeout, TransactionTimeout: f.TransactionTimeout,
		IndexPartitions: f.IndexPartitions, IndexReplicas: f.IndexReplicas,
	}
}

// Groups titles the flags of Config in a command's help, which lists the
// command's own flags first, then these.
func Groups() kong.Option {
	return kong.ExplicitGroups([]kong.Group{
		config.GlobalGroup,
		{Key: "openai", Title: "OpenAI-compatible embeddings (--embedder openai):"},
		{Key: "reranker", Title: "Reranker (--reranker-url):"},
		{Key: "couchbase", Title: "Couchbase (--store couchbase):"},
	})
}

// Vars are the values kong interpolates into the flag defaults of Config.
func Vars() kong.Vars {
	d := couchbase.Defaults
	return kong.Vars{
		"cb_url": d.URL, "cb_bucket": d.Bucket, "cb_scope": d.Scope, "cb_collection": d.Collection,
		"cb_index": d.Index, "cb_fusion": d.Fusion, "cb_durability": d.Durability,
		"cb_connect_timeout": d.ConnectTimeout.String(), "cb_kv_timeout": d.KVTimeout.String(),
		"cb_search_timeout": d.SearchTimeout.String(), "cb_transaction_timeout": d.TransactionTimeout.String(),
		"cb_index_partitions": strconv.Itoa(d.IndexPartitions),
	}
}
