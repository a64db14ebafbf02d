package uselite

import (
	"fmt"
	"math"
)

// The encoder is Universal Sentence Encoder Lite's "KonaTransformer" as the
// TF.js graph in model/model.json computes it, for one token sequence:
//
//	x   = E[id] + (E[id] + timing(position))       // 256 wide; the graph adds the
//	                                               // embeddings to the embeddings
//	                                               // plus timing signal, so they
//	                                               // count twice
//	Layer_0 (256 -> 512), Layer_1 (512 -> 512), each
//	    a = LayerNorm(x)
//	    x = Residual(x) + Wo·MultiHeadSelfAttention(a)   // Residual is a dense
//	                                                     // 256->512 projection in
//	                                                     // Layer_0, identity in Layer_1
//	    x = x + W2·ReLU(W1·LayerNorm(x) + b1) + b2
//	u   = mean of x over the tokens
//	v   = tanh(u·Wt + bt)
//	out = v / sqrt(max(|v|², 1e-12))
//
// Attention has 4 heads (64 wide in Layer_0, 128 in Layer_1) with queries
// scaled by 1/sqrt(head width); LayerNorm has epsilon 1e-6 and is applied
// before each sublayer ("pre-norm"), with no final LayerNorm; the FFN is
// 512 -> 1536 -> 512. The graph takes a batch of padded sequences and masks
// the padding out of attention and pooling; here each sequence is computed
// on its own, which gives the same result. Every constant above is read
// from the weight shards by name rather than written here.

const (
	pEnc   = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	pStack = pEnc + "TransformerStack/"
	pVar   = "module/Encoder_en/KonaTransformer/Encode/"
)

// layerNorm holds a LayerNorm's scale (gamma) and bias (beta).
type layerNorm struct {
	scale, bias []float32
}

// transformerLayer is one "TransformerLayer" of the stack.
type transformerLayer struct {
	in, width      int // input and output width (256 -> 512, 512 -> 512)
	heads, headDim int
	qScale         float32
	attnNorm       layerNorm
	residual       *linear // AdjustResidualInput (Layer_0 only), else nil
	qkv            *linear // qkv_transform_single: in -> 3·heads·headDim
	attnOut        *linear // output_transform_single: heads·headDim -> width
	ffnNorm        layerNorm
	ffnIn, ffnOut  *linear // FFN conv1 (width -> 1536, ReLU), conv2 (1536 -> width)
	ffnHidden      int
	attnWidth      int // heads·headDim
}

// encoder is the whole network.
type encoder struct {
	vocabRows, embDim int
	embeddings        []float32 // [vocabRows][embDim]
	invTimescales     []float32 // [embDim/2]
	timing            []float32 // [maxTokens][embDim]: sin, cos of position·invTimescales
	maxTokens         int       // the graph drops tokens at positions >= maxTokens
	eps               float32   // LayerNorm epsilon
	layers            []*transformerLayer
	hidden            *linear // hidden_layers/tanh_layer_0
	l2Eps             float32 // l2_normalize: max(|v|², l2Eps)
	dims              int
}

// loadEncoder assembles the network from the weights; with int8 the dense
// layers of the transformer layers also get int8 weights (quant.go).
func loadEncoder(w weights, int8 bool) (*encoder, error) {
	r := &weightReader{w: w}
	e := &encoder{}
	emb, ok := w["module/Embeddings_en"]
	if !ok || len(emb.shape) != 2 {
		return nil, fmt.Errorf("uselite: embedding table module/Embeddings_en not found")
	}
	e.vocabRows, e.embDim = emb.shape[0], emb.shape[1]
	e.embeddings = r.f32("module/Embeddings_en", e.vocabRows, e.embDim)
	e.invTimescales = r.f32(pStack+"Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 1, e.embDim/2)
	e.maxTokens = r.scalarI32("module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y")
	e.eps = r.scalarF32(pStack + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x")
	e.l2Eps = r.scalarF32("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y")
	// Both layers split into the number of heads that Layer_1's reshape names.
	heads := r.scalarI32(pStack + "Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2")

	in := e.embDim
	for l := 0; l < 2; l++ {
		t, err := loadLayer(r, l, in, heads)
		if err != nil {
			return nil, err
		}
		e.layers = append(e.layers, t)
		in = t.width
	}
	e.dims = in
	e.hidden = newLinear(
		r.f32("module/Encoder_en/hidden_layers/tanh_layer_0/weights", in, in), in, in,
		r.f32("module/Encoder_en/hidden_layers/tanh_layer_0/bias", in))
	if r.err != nil {
		return nil, r.err
	}
	if err := e.pack(int8); err != nil {
		return nil, err
	}
	if e.maxTokens <= 0 || e.maxTokens > 1<<12 || e.embDim%2 != 0 {
		return nil, fmt.Errorf("uselite: bad model constants (max tokens %d, embedding width %d)", e.maxTokens, e.embDim)
	}
	e.timing = timingSignal(e.maxTokens, e.invTimescales)
	return e, nil
}

// loadLayer reads transformer layer l, of in inputs, whose attention
// splits into heads, from the weights of r.
func loadLayer(r *weightReader, l, in, heads int) (*transformerLayer, error) {
	L := fmt.Sprintf("Layer_%d/TransformerLayer/", l)
	split := r.i32(pStack+L+"MultiheadAttention/Const", 3) // q, k, v widths
	if r.err != nil {
		return nil, r.err
	}
	t := &transformerLayer{in: in, heads: heads, attnWidth: int(split[0])}
	if split[0] != split[1] || split[1] != split[2] || heads <= 0 || t.attnWidth%heads != 0 {
		return nil, fmt.Errorf("uselite: layer %d: unexpected attention split %v for %d heads", l, split, heads)
	}
	t.headDim = r.scalarI32(pStack + L + "MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3")
	t.qScale = r.scalarF32(pStack + L + "MultiheadAttention/mul/y")
	t.width = r.dim(pEnc+L+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", 0)
	if t.headDim*heads != t.attnWidth {
		return nil, fmt.Errorf("uselite: layer %d: %d heads of %d != %d", l, heads, t.headDim, t.attnWidth)
	}
	t.attnNorm = layerNorm{
		scale: r.f32(pEnc+L+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", in),
		bias:  r.f32(pEnc+L+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", in),
	}
	if in != t.width {
		t.residual = newLinear(
			r.f32(pEnc+L+"dense/kernel/ConcatPartitions/concat", in, t.width), in, t.width,
			r.f32(pEnc+L+"dense/bias/ConcatPartitions/concat", t.width))
	}
	t.qkv = newLinear(
		r.f32(pVar+L+"MultiheadAttention/qkv_transform_single/kernel/part_0", 1, 1, in, 3*t.attnWidth), in, 3*t.attnWidth,
		r.f32(pEnc+L+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", 3*t.attnWidth))
	t.attnOut = newLinear(
		r.f32(pVar+L+"MultiheadAttention/output_transform_single/kernel/part_0", 1, 1, t.attnWidth, t.width), t.attnWidth, t.width,
		r.f32(pEnc+L+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", t.width))
	t.ffnNorm = layerNorm{
		scale: r.f32(pEnc+L+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", t.width),
		bias:  r.f32(pEnc+L+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", t.width),
	}
	t.ffnHidden = r.dim(pEnc+L+"FFN/conv1/bias/ConcatPartitions/concat", 0)
	t.ffnIn = newLinear(
		r.f32(pStack+L+"FFN/conv1/Tensordot/Reshape_1", t.width, t.ffnHidden), t.width, t.ffnHidden,
		r.f32(pEnc+L+"FFN/conv1/bias/ConcatPartitions/concat", t.ffnHidden))
	t.ffnOut = newLinear(
		r.f32(pStack+L+"FFN/conv2/Tensordot/Reshape_1", t.ffnHidden, t.width), t.ffnHidden, t.width,
		r.f32(pEnc+L+"FFN/conv2/bias/ConcatPartitions/concat", t.width))
	return t, nil
}

// pack packs the dense layers' kernels (packAll); with int8, those of the
// transformer layers get int8 weights.
func (e *encoder) pack(int8 bool) error {
	all := []*linear{e.hidden}
	quantize := map[*linear]bool{}
	for _, l := range e.layers {
		ls := []*linear{l.qkv, l.attnOut, l.ffnIn, l.ffnOut}
		if l.residual != nil {
			ls = append(ls, l.residual)
		}
		all = append(all, ls...)
		for _, d := range ls {
			quantize[d] = int8
		}
	}
	return packAll(all, quantize)
}

// timingSignal tabulates the timing signal of positions t < T: row t is
// sin(t·inv[j]) for j < len(inv), then cos(t·inv[j]).
func timingSignal(T int, inv []float32) []float32 {
	half := len(inv)
	ts := make([]float32, T*2*half)
	for t := 0; t < T; t++ {
		row := ts[t*2*half : (t+1)*2*half]
		for j, v := range inv {
			angle := float64(float32(t) * v)
			row[j] = float32(math.Sin(angle))
			row[half+j] = float32(math.Cos(angle))
		}
	}
	return ts
}
