//go:build !purego

#include "textflag.h"

// func dotF32AVX2(a, b *float32, n int) float32
//
// The dot product of a[0:n] and b[0:n]; n > 0 is a multiple of 32. Four
// accumulators of 8 lanes, summed pairwise at the end. Needs AVX2 and FMA.
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f32loop:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JNZ         f32loop

	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotsI8AVX2(q *int8, rows **int8, stride int, n int, out *int32)
//
// out[j] = sum over i < stride of q[i] * rows[j][i], for j < n. n > 0 is a multiple of 4, stride > 0 a multiple of 32; every
// byte is in [-127, 127] (so |q|*x pairs fit int16 without saturation).
// Four rows per pass share each load of q: |q| (VPABSB) times x with q's
// sign (VPSIGNB) in unsigned-by-signed VPMADDUBSW, widened by VPMADDWD.
// Needs AVX2.
TEXT ·dotsI8AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), R9
	MOVQ stride+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), BX

	MOVL         $0x00010001, AX
	MOVQ         AX, X15
	VPBROADCASTD X15, Y15

i8group:
	MOVQ (R9), R10
	MOVQ 8(R9), R11
	MOVQ 16(R9), R12
	MOVQ 24(R9), R13

	// ask for the next group's rows now, while this one is summed: a
	// scan out of cache waits on memory, not on the multiplications
	CMPQ CX, $4
	JLE  i8ready
	MOVQ 32(R9), DX
	XORQ AX, AX
i8pf0:
	PREFETCHT0 (DX)(AX*1)
	ADDQ       $64, AX
	CMPQ       AX, R8
	JLT        i8pf0
	MOVQ       40(R9), DX
	XORQ       AX, AX
i8pf1:
	PREFETCHT0 (DX)(AX*1)
	ADDQ       $64, AX
	CMPQ       AX, R8
	JLT        i8pf1
	MOVQ       48(R9), DX
	XORQ       AX, AX
i8pf2:
	PREFETCHT0 (DX)(AX*1)
	ADDQ       $64, AX
	CMPQ       AX, R8
	JLT        i8pf2
	MOVQ       56(R9), DX
	XORQ       AX, AX
i8pf3:
	PREFETCHT0 (DX)(AX*1)
	ADDQ       $64, AX
	CMPQ       AX, R8
	JLT        i8pf3

i8ready:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  AX, AX

i8inner:
	VMOVDQU    (SI)(AX*1), Y4
	VPABSB     Y4, Y5
	VMOVDQU    (R10)(AX*1), Y6
	VMOVDQU    (R11)(AX*1), Y7
	VMOVDQU    (R12)(AX*1), Y8
	VMOVDQU    (R13)(AX*1), Y9
	VPSIGNB    Y4, Y6, Y6
	VPSIGNB    Y4, Y7, Y7
	VPSIGNB    Y4, Y8, Y8
	VPSIGNB    Y4, Y9, Y9
	VPMADDUBSW Y6, Y5, Y6
	VPMADDUBSW Y7, Y5, Y7
	VPMADDUBSW Y8, Y5, Y8
	VPMADDUBSW Y9, Y5, Y9
	VPMADDWD   Y15, Y6, Y6
	VPMADDWD   Y15, Y7, Y7
	VPMADDWD   Y15, Y8, Y8
	VPMADDWD   Y15, Y9, Y9
	VPADDD     Y6, Y0, Y0
	VPADDD     Y7, Y1, Y1
	VPADDD     Y8, Y2, Y2
	VPADDD     Y9, Y3, Y3
	ADDQ       $32, AX
	CMPQ       AX, R8
	JLT        i8inner

	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VMOVDQU      X0, (BX)

	ADDQ $16, BX
	ADDQ $32, R9
	SUBQ $4, CX
	JNZ  i8group
	VZEROUPPER
	RET

// func dotsI8VNNI(qu *uint8, rows **int8, stride int, n int, out *int32)
//
// out[j] = sum over i < stride of qu[i] * rows[j][i] (qu unsigned, rows
// signed: the caller passes q+128 and subtracts 128 * sum(row)), for j < n. n > 0 is a multiple of 4, stride > 0 a multiple
// of 64. One VPDPBUSD per row per 64 bytes, four rows per pass. Needs
// AVX512F and AVX512_VNNI.
TEXT ·dotsI8VNNI(SB), NOSPLIT, $0-40
	MOVQ qu+0(FP), SI
	MOVQ rows+8(FP), R9
	MOVQ stride+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), BX

vnnigroup:
	MOVQ (R9), R10
	MOVQ 8(R9), R11
	MOVQ 16(R9), R12
	MOVQ 24(R9), R13

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ   AX, AX

vnniinner:
	VMOVDQU64 (SI)(AX*1), Z4
	VPDPBUSD  (R10)(AX*1), Z4, Z0
	VPDPBUSD  (R11)(AX*1), Z4, Z1
	VPDPBUSD  (R12)(AX*1), Z4, Z2
	VPDPBUSD  (R13)(AX*1), Z4, Z3
	ADDQ      $64, AX
	CMPQ      AX, R8
	JLT       vnniinner

	VEXTRACTI64X4 $1, Z0, Y4
	VPADDD        Y4, Y0, Y0
	VEXTRACTI64X4 $1, Z1, Y5
	VPADDD        Y5, Y1, Y1
	VEXTRACTI64X4 $1, Z2, Y6
	VPADDD        Y6, Y2, Y2
	VEXTRACTI64X4 $1, Z3, Y7
	VPADDD        Y7, Y3, Y3
	VPHADDD       Y1, Y0, Y0
	VPHADDD       Y3, Y2, Y2
	VPHADDD       Y2, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VMOVDQU       X0, (BX)

	ADDQ $16, BX
	ADDQ $32, R9
	SUBQ $4, CX
	JNZ  vnnigroup
	VZEROUPPER
	RET
