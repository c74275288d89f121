	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	cvt                             ; -- Begin function cvt
	.p2align	8
	.type	cvt,@function
cvt:                                    ; @cvt
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.0:
	.file	1 "/tmp/tmpt5z0e_vn" "conv.ttgir"
	.loc	1 5 13 prologue_end             ; conv.ttgir:5:13
	v_and_b32_e32 v1, 15, v0
	v_lshrrev_b32_e32 v2, 1, v0
	s_load_b64 s[2:3], s[0:1], 0x0
	s_delay_alu instid0(VALU_DEP_1) | instskip(SKIP_2) | instid1(VALU_DEP_3)
	v_and_or_b32 v1, v2, 48, v1
	.loc	1 10 13                         ; conv.ttgir:10:13
	v_lshrrev_b32_e32 v2, 4, v0
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_and_b32_e32 v0, 16, v0
	.loc	1 8 13                          ; conv.ttgir:8:13
	v_lshlrev_b32_e32 v7, 5, v1
	s_delay_alu instid0(VALU_DEP_2) | instskip(NEXT) | instid1(VALU_DEP_2)
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_cmp_eq_u32_e32 vcc_lo, 0, v0
	.loc	1 13 13                         ; conv.ttgir:13:13
	v_and_or_b32 v1, v2, 1, v7
	s_delay_alu instid0(VALU_DEP_1)
	.loc	1 15 12                         ; conv.ttgir:15:12
	v_lshlrev_b32_e32 v9, 1, v1
	.loc	1 16 10                         ; conv.ttgir:16:10
	s_waitcnt lgkmcnt(0)
	s_clause 0xf
	global_load_u16 v2, v9, s[2:3]
	global_load_u16 v3, v9, s[2:3] offset:8
	global_load_u16 v1, v9, s[2:3] offset:16
	global_load_u16 v4, v9, s[2:3] offset:24
	global_load_u16 v5, v9, s[2:3] offset:32
	global_load_u16 v8, v9, s[2:3] offset:40
	global_load_u16 v6, v9, s[2:3] offset:48
	global_load_u16 v10, v9, s[2:3] offset:56
	global_load_d16_hi_b16 v2, v9, s[2:3] offset:4
	global_load_d16_hi_b16 v3, v9, s[2:3] offset:12
	global_load_d16_hi_b16 v1, v9, s[2:3] offset:20
	global_load_d16_hi_b16 v4, v9, s[2:3] offset:28
	global_load_d16_hi_b16 v5, v9, s[2:3] offset:36
	global_load_d16_hi_b16 v8, v9, s[2:3] offset:44
	global_load_d16_hi_b16 v6, v9, s[2:3] offset:52
	global_load_d16_hi_b16 v10, v9, s[2:3] offset:60
	s_mov_b32 s2, 0x76543210
	.loc	1 17 10                         ; conv.ttgir:17:10
	s_waitcnt vmcnt(7)
	v_permlanex16_b32 v14, v2, s2, 0xfedcba98 op_sel:[1,0]
	s_waitcnt vmcnt(6)
	v_permlanex16_b32 v13, v3, s2, 0xfedcba98 op_sel:[1,0]
	s_waitcnt vmcnt(5)
	v_permlanex16_b32 v0, v1, s2, 0xfedcba98 op_sel:[1,0]
	s_waitcnt vmcnt(4)
	v_permlanex16_b32 v12, v4, s2, 0xfedcba98 op_sel:[1,0]
	s_waitcnt vmcnt(3)
	v_permlanex16_b32 v9, v5, s2, 0xfedcba98 op_sel:[1,0]
	s_waitcnt vmcnt(2)
	v_permlanex16_b32 v15, v8, s2, 0xfedcba98 op_sel:[1,0]
	s_waitcnt vmcnt(1)
	v_permlanex16_b32 v11, v6, s2, 0xfedcba98 op_sel:[1,0]
	s_waitcnt vmcnt(0)
	v_permlanex16_b32 v16, v10, s2, 0xfedcba98 op_sel:[1,0]
	.loc	1 29 5                          ; conv.ttgir:29:5
	s_and_saveexec_b32 s2, vcc_lo
	s_cbranch_execz .LBB0_2
; %bb.1:                                ; %.critedge
	.loc	1 0 5 is_stmt 0                 ; conv.ttgir:0:5
	s_load_b64 s[0:1], s[0:1], 0x8
	.loc	1 28 12 is_stmt 1               ; conv.ttgir:28:12
	v_lshlrev_b32_e32 v7, 1, v7
	.loc	1 17 10                         ; conv.ttgir:17:10
	v_perm_b32 v23, v14, v2, 0x5040100
	v_perm_b32 v24, v14, v2, 0x7060302
	v_perm_b32 v25, v13, v3, 0x5040100
	v_perm_b32 v26, v13, v3, 0x7060302
	v_perm_b32 v30, v12, v4, 0x7060302
	v_perm_b32 v29, v12, v4, 0x5040100
	v_perm_b32 v28, v0, v1, 0x7060302
	v_perm_b32 v27, v0, v1, 0x5040100
	v_perm_b32 v22, v15, v8, 0x7060302
	v_perm_b32 v21, v15, v8, 0x5040100
	v_perm_b32 v20, v9, v5, 0x7060302
	v_perm_b32 v19, v9, v5, 0x5040100
	v_perm_b32 v18, v16, v10, 0x7060302
	v_perm_b32 v17, v16, v10, 0x5040100
	v_perm_b32 v16, v11, v6, 0x7060302
	v_perm_b32 v15, v11, v6, 0x5040100
	.loc	1 29 5                          ; conv.ttgir:29:5
	s_waitcnt lgkmcnt(0)
	s_clause 0x3
	global_store_b128 v7, v[23:26], s[0:1]
	global_store_b128 v7, v[27:30], s[0:1] offset:16
	global_store_b128 v7, v[19:22], s[0:1] offset:32
	global_store_b128 v7, v[15:18], s[0:1] offset:48
.LBB0_2:                                ; %.critedge4
	.loc	1 30 5                          ; conv.ttgir:30:5
	s_endpgm
.Ltmp0:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel cvt
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 32
		.amdhsa_user_sgpr_count 15
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_wavefront_size32 1
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 31
		.amdhsa_next_free_sgpr 4
		.amdhsa_reserve_vcc 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_workgroup_processor_mode 1
		.amdhsa_memory_ordered 1
		.amdhsa_forward_progress 1
		.amdhsa_shared_vgpr_count 0
		.amdhsa_inst_pref_size 5
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
	.set cvt.num_vgpr, 31
	.set cvt.num_agpr, 0
	.set cvt.numbered_sgpr, 4
	.set cvt.num_named_barrier, 0
	.set cvt.private_seg_size, 0
	.set cvt.uses_vcc, 1
	.set cvt.uses_flat_scratch, 0
	.set cvt.has_dyn_sized_stack, 0
	.set cvt.has_recursion, 0
	.set cvt.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 592
; TotalNumSgprs: 6
; NumVgprs: 31
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 0
; VGPRBlocks: 3
; NumSGPRsForWavesPerEU: 6
; NumVGPRsForWavesPerEU: 31
; Occupancy: 16
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 15
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
	.text
	.p2alignl 7, 3214868480
	.fill 96, 4, 3214868480
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
	.asciz	"/tmp/tmpt5z0e_vn"              ; string offset=18
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
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
    .max_flat_workgroup_size: 128
    .name:           cvt
    .private_segment_fixed_size: 0
    .sgpr_count:     6
    .sgpr_spill_count: 0
    .symbol:         cvt.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     31
    .vgpr_spill_count: 0
    .wavefront_size: 32
    .workgroup_processor_mode: 1
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
	.section	.debug_line,"",@progbits
.Lline_table_start0:
