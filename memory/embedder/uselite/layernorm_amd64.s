//go:build !purego

#include "textflag.h"

#define HSUM(z, y, x, ty, tx) \
	VEXTRACTF64X4 $1, z, ty; \
	VADDPS        ty, y, y; \
	VEXTRACTF128  $1, y, tx; \
	VADDPS        tx, x, x; \
	VPERMILPS     $0x4E, x, tx; \
	VADDPS        tx, x, x; \
	VPERMILPS     $0xB1, x, tx; \
	VADDPS        tx, x, x

// func layerNorm16(y, x *float32, n int, scale, bias *float32, eps float32)
//
// One row of layerNorm.normalize: y[j] = (x[j]-mean)·rs·scale[j] + bias[j]
// with rs = 1/sqrt(variance+eps), mean and variance summed in float32. n is
// a positive multiple of 16. Needs AVX512F.
TEXT ·layerNorm16(SB), NOSPLIT, $0-44
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX

	// Mean.
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ   SI, AX
	MOVQ   CX, DX
	TESTQ  $16, DX
	JZ     sum2
	VADDPS (AX), Z0, Z0
	ADDQ   $64, AX
	SUBQ   $16, DX
	JZ     sumdone

sum2:
	VADDPS (AX), Z0, Z0
	VADDPS 64(AX), Z1, Z1
	ADDQ   $128, AX
	SUBQ   $32, DX
	JNZ    sum2

sumdone:
	VADDPS      Z1, Z0, Z0
	HSUM(Z0, Y0, X0, Y2, X2)
	VCVTSI2SSQ  CX, X3, X3     // n
	VDIVSS      X3, X0, X0     // mean
	VBROADCASTSS X0, Z4        // Z4: mean

	// Variance.
	VPXORD Z0, Z0, Z0
	MOVQ   SI, AX
	MOVQ   CX, DX

varloop:
	VSUBPS      (AX), Z4, Z5   // mean - x: squared the same
	VFMADD231PS Z5, Z5, Z0
	ADDQ        $64, AX
	SUBQ        $16, DX
	JNZ         varloop
	HSUM(Z0, Y0, X0, Y2, X2)
	VDIVSS       X3, X0, X0    // variance
	VADDSS       eps+40(FP), X0, X0
	VSQRTSS      X0, X0, X0
	MOVL         $0x3f800000, AX
	VMOVD        AX, X1
	VDIVSS       X0, X1, X0    // rs
	VBROADCASTSS X0, Z6        // Z6: rs

	MOVQ scale+24(FP), R8
	MOVQ bias+32(FP), R9

normloop:
	VMOVUPS     (SI), Z5
	VSUBPS      Z4, Z5, Z5
	VMULPS      Z6, Z5, Z5
	VMOVUPS     (R9), Z7
	VFMADD231PS (R8), Z5, Z7   // bias + (x-mean)·rs·scale
	VMOVUPS     Z7, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	ADDQ        $64, R8
	ADDQ        $64, R9
	SUBQ        $16, CX
	JNZ         normloop
	VZEROUPPER
	RET
