	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	cvt                             ; -- Begin function cvt
	.p2align	8
	.type	cvt,@function
cvt:                                    ; @cvt
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.1:
	.file	1 "/tmp/tmpeh_l4tp2" "conv.ttgir"
	.loc	1 4 0 prologue_end              ; conv.ttgir:4:0
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dwordx4 s[4:7], s[0:1], 0x8
	s_load_dwordx2 s[8:9], s[0:1], 0x18
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.2:
.LBB0_0:
.Ltmp1:
	.loc	1 10 13 is_stmt 1               ; conv.ttgir:10:13
	v_and_b32_e32 v22, 64, v0
	.loc	1 5 13                          ; conv.ttgir:5:13
	v_and_b32_e32 v1, 0x80, v0
	.loc	1 10 13                         ; conv.ttgir:10:13
	v_lshrrev_b32_e32 v3, 3, v0
	v_lshrrev_b32_e32 v4, 1, v22
	.loc	1 5 13                          ; conv.ttgir:5:13
	v_lshrrev_b32_e32 v2, 2, v1
	.loc	1 10 13                         ; conv.ttgir:10:13
	v_and_or_b32 v3, v3, 4, v4
	.loc	1 5 13                          ; conv.ttgir:5:13
	v_and_or_b32 v2, v0, 31, v2
	.loc	1 15 12                         ; conv.ttgir:15:12
	v_lshlrev_b32_e32 v3, 2, v3
	v_lshl_or_b32 v18, v2, 8, v3
	.loc	1 16 10                         ; conv.ttgir:16:10
	global_load_dwordx4 v[2:5], v18, s[2:3]
	global_load_dwordx4 v[6:9], v18, s[2:3] offset:32
	global_load_dwordx4 v[10:13], v18, s[2:3] offset:64
	global_load_dwordx4 v[14:17], v18, s[2:3] offset:96
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_lshlrev_b32_e32 v20, 3, v0
	v_and_b32_e32 v21, 1, v0
	s_movk_i32 s0, 0x2e00
	.loc	1 28 12                         ; conv.ttgir:28:12
	v_mov_b32_e32 v19, 0
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_lshlrev_b32_e32 v23, 8, v0
	v_and_b32_e32 v24, 0xe0, v0
	.loc	1 28 12                         ; conv.ttgir:28:12
	v_lshlrev_b32_e32 v18, 4, v0
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_and_b32_e32 v0, 0xf0, v20
	v_lshlrev_b32_e32 v25, 12, v21
	v_and_b32_e32 v26, 0x70, v20
	v_lshlrev_b32_e32 v1, 1, v1
	v_lshrrev_b32_e32 v27, 1, v24
	v_and_b32_e32 v28, 0x1000, v23
	v_lshl_add_u32 v29, v21, 13, 0
	.loc	1 28 12                         ; conv.ttgir:28:12
	v_lshl_add_u64 v[20:21], s[4:5], 0, v[18:19]
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_and_or_b32 v19, v23, s0, v25
	v_xor_b32_e32 v0, v0, v22
	v_lshl_or_b32 v23, v24, 4, v26
	v_or3_b32 v0, v19, v1, v0
	v_xor_b32_e32 v1, v23, v27
	.loc	1 29 5                          ; conv.ttgir:29:5
	s_movk_i32 s1, 0x1000
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_add_u32_e32 v19, 0, v0
	v_xad_u32 v26, v0, 16, 0
	v_xad_u32 v27, v0, 32, 0
	v_xad_u32 v0, v0, 48, 0
	v_add3_u32 v28, v29, v28, v1
	.loc	1 29 5                          ; conv.ttgir:29:5
	v_add_co_u32_e32 v22, vcc, s1, v20
	.loc	1 17 10                         ; conv.ttgir:17:10
	s_waitcnt vmcnt(3)
	ds_write_b128 v19, v[2:5]
	s_waitcnt vmcnt(2)
	ds_write_b128 v26, v[6:9]
	s_waitcnt vmcnt(1)
	ds_write_b128 v27, v[10:13]
	s_waitcnt vmcnt(0)
	ds_write_b128 v0, v[14:17]
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b128 v[0:3], v28
	ds_read_b128 v[4:7], v28 offset:128
	ds_read_b128 v[8:11], v28 offset:256
	ds_read_b128 v[12:15], v28 offset:384
	.loc	1 29 5                          ; conv.ttgir:29:5
	v_addc_co_u32_e32 v23, vcc, 0, v21, vcc
	v_add_co_u32_e32 v24, vcc, 0x2000, v20
	s_nop 1
	v_addc_co_u32_e32 v25, vcc, 0, v21, vcc
	v_add_co_u32_e32 v20, vcc, 0x3000, v20
	s_nop 1
	v_addc_co_u32_e32 v21, vcc, 0, v21, vcc
	s_waitcnt lgkmcnt(3)
	global_store_dwordx4 v18, v[0:3], s[4:5]
	s_waitcnt lgkmcnt(2)
	global_store_dwordx4 v[22:23], v[4:7], off
	s_waitcnt lgkmcnt(1)
	global_store_dwordx4 v[24:25], v[8:11], off
	s_waitcnt lgkmcnt(0)
	global_store_dwordx4 v[20:21], v[12:15], off
	.loc	1 30 5                          ; conv.ttgir:30:5
	s_endpgm
.Ltmp2:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel cvt
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 32
		.amdhsa_user_sgpr_count 10
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 8
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 30
		.amdhsa_next_free_sgpr 10
		.amdhsa_accum_offset 32
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	cvt, .Lfunc_end0-cvt
	.cfi_endproc
                                        ; -- End function
	.set cvt.num_vgpr, 30
	.set cvt.num_agpr, 0
	.set cvt.numbered_sgpr, 10
	.set cvt.num_named_barrier, 0
	.set cvt.private_seg_size, 0
	.set cvt.uses_vcc, 1
	.set cvt.uses_flat_scratch, 0
	.set cvt.has_dyn_sized_stack, 0
	.set cvt.has_recursion, 0
	.set cvt.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 676
; TotalNumSgprs: 16
; NumVgprs: 30
; NumAgprs: 0
; TotalNumVgprs: 30
; ScratchSize: 0
; MemoryBound: 1
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 1
; VGPRBlocks: 3
; NumSGPRsForWavesPerEU: 16
; NumVGPRsForWavesPerEU: 30
; AccumOffset: 32
; Occupancy: 8
; WaveLimiterHint : 1
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 10
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 7
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.text
	.section	.debug_abbrev,"",@progbits
	.byte	1                               ; Abbreviation Code
	.byte	17                              ; DW_TAG_compile_unit
	.byte	0                               ; DW_CHILDREN_no
	.byte	37                              ; DW_AT_producer
	.byte	14                              ; DW_FORM_strp
	.byte	19                              ; DW_AT_language
	.byte	5                               ; DW_FORM_data2
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	16                              ; DW_AT_stmt_list
	.byte	23                              ; DW_FORM_sec_offset
	.byte	27                              ; DW_AT_comp_dir
	.byte	14                              ; DW_FORM_strp
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	0                               ; EOM(3)
	.section	.debug_info,"",@progbits
.Lcu_begin0:
	.long	.Ldebug_info_end0-.Ldebug_info_start0 ; Length of Unit
.Ldebug_info_start0:
	.short	4                               ; DWARF version number
	.long	.debug_abbrev                   ; Offset Into Abbrev. Section
	.byte	8                               ; Address Size (in bytes)
	.byte	1                               ; Abbrev [1] 0xb:0x1f DW_TAG_compile_unit
	.long	.Linfo_string0                  ; DW_AT_producer
	.short	2                               ; DW_AT_language
	.long	.Linfo_string1                  ; DW_AT_name
	.long	.Lline_table_start0             ; DW_AT_stmt_list
	.long	.Linfo_string2                  ; DW_AT_comp_dir
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
.Ldebug_info_end0:
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"triton"                        ; string offset=0
.Linfo_string1:
	.asciz	"conv.ttgir"                    ; string offset=7
.Linfo_string2:
	.asciz	"/tmp/tmpeh_l4tp2"              ; string offset=18
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         24
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 256
    .name:           cvt
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .sgpr_spill_count: 0
    .symbol:         cvt.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     30
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
	.section	.debug_line,"",@progbits
.Lline_table_start0:
