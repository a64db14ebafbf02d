//go:build !purego

#include "textflag.h"

// func softmax16(s *float32, n int)
//
// s[0:n] = exp(s - max(s)) / sum, n a positive multiple of 16, with the
// Cephes expf of expNonPositive (inputs below -87.33654 give about 1e-38
// instead of 0) and the sum in float32. Needs AVX512F.
TEXT ·softmax16(SB), NOSPLIT, $0-16
	MOVQ s+0(FP), SI
	MOVQ n+8(FP), CX

	// Z0: the maximum, broadcast.
	MOVQ    SI, DI
	MOVQ    CX, DX
	VMOVUPS (DI), Z0
	ADDQ    $64, DI
	SUBQ    $16, DX
	JZ      maxdone

maxloop:
	VMAXPS (DI), Z0, Z0
	ADDQ   $64, DI
	SUBQ   $16, DX
	JNZ    maxloop

maxdone:
	VEXTRACTF64X4 $1, Z0, Y2
	VMAXPS        Y2, Y0, Y0
	VEXTRACTF128  $1, Y0, X2
	VMAXPS        X2, X0, X0
	VPERMILPS     $0x4E, X0, X2
	VMAXPS        X2, X0, X0
	VPERMILPS     $0xB1, X0, X2
	VMAXPS        X2, X0, X0
	VBROADCASTSS  X0, Z0

	// Constants.
	MOVL         $0xc2aeac4f, AX // -87.33654
	VPBROADCASTD AX, Z20
	MOVL         $0x3fb8aa3b, AX // log2(e)
	VPBROADCASTD AX, Z21
	MOVL         $0x3f318000, AX // c1
	VPBROADCASTD AX, Z22
	MOVL         $0xb95e8083, AX // c2
	VPBROADCASTD AX, Z23
	MOVL         $0x39506967, AX
	VPBROADCASTD AX, Z24
	MOVL         $0x3ab743ce, AX
	VPBROADCASTD AX, Z25
	MOVL         $0x3c088908, AX
	VPBROADCASTD AX, Z26
	MOVL         $0x3d2aa9c1, AX
	VPBROADCASTD AX, Z27
	MOVL         $0x3e2aaaaa, AX
	VPBROADCASTD AX, Z28
	MOVL         $0x3f000000, AX
	VPBROADCASTD AX, Z29
	MOVL         $0x3f800000, AX // 1
	VPBROADCASTD AX, Z30

	// Z1: the sum.
	VPXORD Z1, Z1, Z1
	MOVQ   SI, DI
	MOVQ   CX, DX

exploop:
	VMOVUPS      (DI), Z2
	VSUBPS       Z0, Z2, Z2         // x = s - max
	VMAXPS       Z20, Z2, Z2        // x >= -87.33654
	VMULPS       Z21, Z2, Z3
	VRNDSCALEPS  $0, Z3, Z3         // n = round(x·log2e)
	VFNMADD231PS Z22, Z3, Z2        // r = x - n·c1
	VFNMADD231PS Z23, Z3, Z2        // r -= n·c2
	VMOVAPS      Z24, Z4
	VFMADD213PS  Z25, Z2, Z4        // p = p·r + ...
	VFMADD213PS  Z26, Z2, Z4
	VFMADD213PS  Z27, Z2, Z4
	VFMADD213PS  Z28, Z2, Z4
	VFMADD213PS  Z29, Z2, Z4
	VMULPS       Z2, Z2, Z5         // r²
	VFMADD213PS  Z2, Z5, Z4         // p = p·r² + r
	VADDPS       Z30, Z4, Z4        // p += 1
	VSCALEFPS    Z3, Z4, Z4         // p·2^n
	VMOVUPS      Z4, (DI)
	VADDPS       Z4, Z1, Z1
	ADDQ         $64, DI
	SUBQ         $16, DX
	JNZ          exploop

	VEXTRACTF64X4 $1, Z1, Y2
	VADDPS        Y2, Y1, Y1
	VEXTRACTF128  $1, Y1, X2
	VADDPS        X2, X1, X1
	VPERMILPS     $0x4E, X1, X2
	VADDPS        X2, X1, X1
	VPERMILPS     $0xB1, X1, X2
	VADDPS        X2, X1, X1
	VDIVSS        X1, X30, X1       // 1/sum
	VBROADCASTSS  X1, Z1

divloop:
	VMULPS  (SI), Z1, Z2
	VMOVUPS Z2, (SI)
	ADDQ    $64, SI
	SUBQ    $16, CX
	JNZ     divloop
	VZEROUPPER
	RET
