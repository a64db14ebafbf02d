//go:build !purego

#include "textflag.h"

// func qgemm6x32(k4 int, a *uint8, b *int8, c *float32, ldc int, rs *float32, rz *int32, cs *float32, colSum *int32, bias *float32)
//
// For r < 6 and j < 32, with acc[r][j] the int32 sum over i < k4 of
// a[r*k4+i] (unsigned) * B[i][j] (signed):
//
//	c[r*ldc+j] = float32(acc[r][j] - rz[r]*colSum[j]) * (cs[j]*rs[r]) + bias[j]
//
// b holds two panels of 16 features, each [k4/4][16][4] bytes, the second
// 16·k4 bytes after the first. k4 is a positive multiple of 4. Needs
// AVX512F, AVX512BW and AVX512_VNNI.
TEXT ·qgemm6x32(SB), NOSPLIT, $0-80
	MOVQ k4+0(FP), CX
	MOVQ a+8(FP), R9
	MOVQ b+16(FP), BX

	// R9..R13, SI: the six rows of a. AX: byte offset into each row.
	LEAQ (R9)(CX*1), R10
	LEAQ (R10)(CX*1), R11
	LEAQ (R11)(CX*1), R12
	LEAQ (R12)(CX*1), R13
	LEAQ (R13)(CX*1), SI

	// DX: the second panel, 16·k4 bytes after the first.
	MOVQ CX, DX
	SHLQ $4, DX
	ADDQ BX, DX
	XORQ AX, AX
	SHRQ $2, CX

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11

loop:
	VMOVDQU32    (BX), Z12
	VMOVDQU32    (DX), Z13
	VPBROADCASTD (R9)(AX*1), Z14
	VPDPBUSD     Z12, Z14, Z0
	VPDPBUSD     Z13, Z14, Z1
	VPBROADCASTD (R10)(AX*1), Z15
	VPDPBUSD     Z12, Z15, Z2
	VPDPBUSD     Z13, Z15, Z3
	VPBROADCASTD (R11)(AX*1), Z16
	VPDPBUSD     Z12, Z16, Z4
	VPDPBUSD     Z13, Z16, Z5
	VPBROADCASTD (R12)(AX*1), Z17
	VPDPBUSD     Z12, Z17, Z6
	VPDPBUSD     Z13, Z17, Z7
	VPBROADCASTD (R13)(AX*1), Z18
	VPDPBUSD     Z12, Z18, Z8
	VPDPBUSD     Z13, Z18, Z9
	VPBROADCASTD (SI)(AX*1), Z19
	VPDPBUSD     Z12, Z19, Z10
	VPDPBUSD     Z13, Z19, Z11
	ADDQ         $64, BX
	ADDQ         $64, DX
	ADDQ         $4, AX
	DECQ         CX
	JNZ          loop

	// Epilogue. Z20, Z21: colSum; Z22, Z23: cs; Z24, Z25: bias.
	MOVQ   colSum+64(FP), AX
	VMOVDQU32 (AX), Z20
	VMOVDQU32 64(AX), Z21
	MOVQ   cs+56(FP), AX
	VMOVUPS (AX), Z22
	VMOVUPS 64(AX), Z23
	MOVQ   bias+72(FP), AX
	VMOVUPS (AX), Z24
	VMOVUPS 64(AX), Z25
	MOVQ   c+24(FP), DI
	MOVQ   ldc+32(FP), R8
	SHLQ   $2, R8
	MOVQ   rs+40(FP), R9
	MOVQ   rz+48(FP), R10

#define ROW(lo, hi, off) \
	VPBROADCASTD off(R10), Z26; \
	VPMULLD      Z20, Z26, Z27; \
	VPMULLD      Z21, Z26, Z28; \
	VPSUBD       Z27, lo, lo; \
	VPSUBD       Z28, hi, hi; \
	VCVTDQ2PS    lo, lo; \
	VCVTDQ2PS    hi, hi; \
	VBROADCASTSS off(R9), Z26; \
	VMULPS       Z22, Z26, Z27; \
	VMULPS       Z23, Z26, Z28; \
	VMULPS       Z27, lo, lo; \
	VMULPS       Z28, hi, hi; \
	VADDPS       Z24, lo, lo; \
	VADDPS       Z25, hi, hi; \
	VMOVUPS      lo, (DI); \
	VMOVUPS      hi, 64(DI); \
	ADDQ         R8, DI

	ROW(Z0, Z1, 0)
	ROW(Z2, Z3, 4)
	ROW(Z4, Z5, 8)
	ROW(Z6, Z7, 12)
	ROW(Z8, Z9, 16)
	ROW(Z10, Z11, 20)
	VZEROUPPER
	RET

// func minMax16(x *float32, n int) (lo, hi float32)
//
// The least and greatest of x[0:n]; n is a positive multiple of 16. Needs
// AVX512F.
TEXT ·minMax16(SB), NOSPLIT, $0-24
	MOVQ    x+0(FP), SI
	MOVQ    n+8(FP), CX
	VMOVUPS (SI), Z0
	VMOVAPS Z0, Z1
	ADDQ    $64, SI
	SUBQ    $16, CX
	JZ      reduce

minmaxloop:
	VMOVUPS (SI), Z2
	VMINPS  Z2, Z0, Z0
	VMAXPS  Z2, Z1, Z1
	ADDQ    $64, SI
	SUBQ    $16, CX
	JNZ     minmaxloop

reduce:
	VEXTRACTF64X4 $1, Z0, Y2
	VMINPS        Y2, Y0, Y0
	VEXTRACTF128  $1, Y0, X2
	VMINPS        X2, X0, X0
	VPERMILPS     $0x4E, X0, X2
	VMINPS        X2, X0, X0
	VPERMILPS     $0xB1, X0, X2
	VMINPS        X2, X0, X0
	VEXTRACTF64X4 $1, Z1, Y2
	VMAXPS        Y2, Y1, Y1
	VEXTRACTF128  $1, Y1, X2
	VMAXPS        X2, X1, X1
	VPERMILPS     $0x4E, X1, X2
	VMAXPS        X2, X1, X1
	VPERMILPS     $0xB1, X1, X2
	VMAXPS        X2, X1, X1
	VMOVSS        X0, lo+16(FP)
	VMOVSS        X1, hi+20(FP)
	VZEROUPPER
	RET

// func quant16(x *float32, n int, inv, z float32, q *uint8)
//
// q[i] = clamp(roundToEven(float32(x[i]*inv) + z), 0, 255) for i < n; n is
// a positive multiple of 16. Needs AVX512F.
TEXT ·quant16(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS inv+16(FP), Z3
	VBROADCASTSS z+20(FP), Z4
	MOVQ         q+24(FP), DI
	VPXORD       Z5, Z5, Z5

quantloop:
	VMULPS    (SI), Z3, Z0
	VADDPS    Z4, Z0, Z0
	VCVTPS2DQ Z0, Z0
	VPMAXSD   Z5, Z0, Z0
	VPMOVUSDB Z0, (DI)
	ADDQ      $64, SI
	ADDQ      $16, DI
	SUBQ      $16, CX
	JNZ       quantloop
	VZEROUPPER
	RET
